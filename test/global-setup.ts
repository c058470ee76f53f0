import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { createLogger, findTemporalCli, freePort, startDevTemporal, startEmbeddedPostgres } from '@muse/core';
import { workflowBundleFile, writeWorkflowBundles } from '@muse/temporal';
import { createTemplateDatabase } from '@muse/test-support/database';

declare module 'vitest' {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
    /** The migrated database on `adminDatabaseUrl` that each test file's database is copied from. */
    templateDatabase: string;
    temporalAddress: string;
    /** Both bundles, as `muse-server bundle-workflows` writes them: spawned workers load them (MUSE_WORKFLOW_BUNDLE_DIR). */
    workflowBundleDir: string;
    /** Its bundle without tracing, for the workers tests run in their own process. */
    workflowBundlePath: string;
  }
}

/**
 * Starts the real dependencies once per test run: an embedded Postgres (or the one in
 * MUSE_TEST_DATABASE_URL) holding a migrated template database, a Temporal dev server (or
 * MUSE_TEST_TEMPORAL_ADDRESS), and the bundled workflow code that every test worker loads, in
 * process or spawned.
 */
export default async function setup(project: TestProject) {
  const logger = createLogger({ NODE_ENV: 'test', LOG_LEVEL: 'warn' }, 'test-setup');
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'muse-test-'));
  const stops: (() => Promise<void>)[] = [];

  // Postgres first: the Temporal dev server picks free ports of its own for its services, and one
  // could be the port Postgres was given and had not bound yet. Then the template's migration, the
  // Temporal start and the workflow bundle run together: the setup takes as long as the slowest.
  const postgresListening = (async () => {
    if (process.env.MUSE_TEST_DATABASE_URL) return process.env.MUSE_TEST_DATABASE_URL;
    const postgres = await startEmbeddedPostgres({
      dataDir: path.join(workDir, 'postgres'),
      port: await freePort(),
      logger,
      persistent: false,
      // The run's data is thrown away at its end, so nothing needs to survive a crash of the
      // machine: no flushes to disk. (A crash of Postgres alone still loses nothing committed.)
      settings: { fsync: 'off', full_page_writes: 'off' },
    });
    stops.push(postgres.stop);
    return postgres.adminUrl;
  })();
  const workflowBundleDir = path.join(workDir, 'workflow-bundles');
  const [{ adminDatabaseUrl, templateDatabase }, temporalAddress] = await Promise.all([
    postgresListening.then(async (adminDatabaseUrl) => {
      const template = await createTemplateDatabase(adminDatabaseUrl);
      stops.push(template.drop);
      return { adminDatabaseUrl, templateDatabase: template.name };
    }),
    postgresListening.then(async () => {
      if (process.env.MUSE_TEST_TEMPORAL_ADDRESS) return process.env.MUSE_TEST_TEMPORAL_ADDRESS;
      const temporal = await startDevTemporal({
        cliPath: findTemporalCli(process.env.TEMPORAL_CLI_PATH),
        port: await freePort(),
        logger,
      });
      stops.push(temporal.stop);
      return temporal.address;
    }),
    writeWorkflowBundles(workflowBundleDir),
  ]);

  project.provide('adminDatabaseUrl', adminDatabaseUrl);
  project.provide('templateDatabase', templateDatabase);
  project.provide('temporalAddress', temporalAddress);
  project.provide('workflowBundleDir', workflowBundleDir);
  project.provide('workflowBundlePath', workflowBundleFile(workflowBundleDir, false));

  return async () => {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    await rm(workDir, { recursive: true, force: true });
  };
}
