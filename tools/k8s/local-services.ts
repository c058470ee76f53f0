/**
 * The Postgres and Temporal that the image check (image-check.ts) and the cluster suite
 * (test/k8s/cluster.e2e.ts) run the image against: an embedded Postgres in `workDir` and a
 * Temporal dev server, each on a free loopback port of this machine.
 */
import path from 'node:path';
import { createLogger, findTemporalCli, freePort, startDevTemporal, startEmbeddedPostgres } from '@muse/core';

export interface LocalServices {
  databaseUrl: string;
  /** host:port of the Temporal frontend. */
  temporalAddress: string;
  /** Stops Temporal, then Postgres. */
  stop(): Promise<void>;
}

/** `name`: the logger's, in the services' warnings. */
export async function startLocalServices(workDir: string, name: string): Promise<LocalServices> {
  const logger = createLogger({ NODE_ENV: 'test', LOG_LEVEL: 'warn' }, name);
  const postgres = await startEmbeddedPostgres({
    dataDir: path.join(workDir, 'postgres'),
    port: await freePort(),
    logger,
    persistent: false,
  });
  const temporal = await startDevTemporal({
    cliPath: findTemporalCli(process.env.TEMPORAL_CLI_PATH),
    port: await freePort(),
    logger,
  }).catch(async (error: unknown) => {
    await postgres.stop();
    throw error;
  });
  return {
    databaseUrl: postgres.databaseUrl,
    temporalAddress: temporal.address,
    async stop() {
      await temporal.stop().catch(() => {});
      await postgres.stop();
    },
  };
}
