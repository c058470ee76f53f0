#!/usr/bin/env node
import { Command, Option } from 'commander';
import { ConfigError, loadConfig, type Config } from '@muse/core';
import { registerChatCommands } from './commands/chat.ts';
import { museVersion } from './commands/version.ts';
import type { MigrateOptions } from './commands/migrate.ts';
import type { OperatorCommandOptions } from './commands/operator.ts';
import type { RotateCommandOptions } from './commands/rotate-jwt-secret.ts';

// Each command's module is imported when that command runs: an API process does not load the
// worker's bundler, the operator's Kubernetes client or the dev stack's Temporal test server
// (together most of its memory).

/** Every sub-command reads the validated configuration first; a bad value stops here, named. */
function withConfig<T = void>(run: (config: Config, options: T) => Promise<void>) {
  return async (options: T) => {
    try {
      await run(loadConfig(), options);
    } catch (error) {
      if (error instanceof ConfigError) {
        console.error(error.message);
        process.exit(2);
      }
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    }
  };
}

// Started with an IPC channel (by `muse-server dev`, or a test): when that parent goes away, however
// it ended, shut down as on SIGTERM. The channel alone must not keep a finished command running.
if (process.send) {
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  process.channel?.unref();
}

const program = new Command('muse-server').description('Muse platform server').version(museVersion());
program
  .command('content-api')
  .description('serve the content API')
  .action(withConfig(async (c) => (await import('./commands/api.ts')).runApi('content-api', c)));
program
  .command('chat-api')
  .description('serve the messaging API')
  .action(withConfig(async (c) => (await import('./commands/api.ts')).runApi('chat-api', c)));
program
  .command('worker')
  .description('run the Temporal worker')
  .action(withConfig(async (c) => (await import('./commands/worker.ts')).runWorker(c)));
program
  .command('bundle-workflows')
  .description(
    'write the workflow bundles into <dir>, for workers started with MUSE_WORKFLOW_BUNDLE_DIR=<dir>',
  )
  .argument('<dir>', 'directory to write workflows.js and workflows-tracing.js into (made if missing)')
  .action(
    withConfig<string>(async (_config, dir) =>
      (await import('./commands/bundle-workflows.ts')).runBundleWorkflows(dir),
    ),
  );
program
  .command('migrate')
  .description('apply database migrations')
  .option('--wait', 'apply nothing; wait until every migration of this version has been applied')
  .option('--timeout <seconds>', 'how long --wait waits', '600')
  .action(
    withConfig<MigrateOptions>(async (c, o) => (await import('./commands/migrate.ts')).runMigrate(c, o)),
  );
program
  .command('dev')
  .description('run the whole platform locally, starting embedded Postgres and Temporal when not configured')
  .action(withConfig(async (c) => (await import('./commands/dev.ts')).runDev(c)));
registerChatCommands(program, withConfig);
const collect = (value: string, previous: string[]) => [...previous, value];
program
  .command('operator')
  .description('reconcile Generator, VerificationCodeProvider and ChatOrganization resources (Kubernetes)')
  .option(
    '--namespace <name>',
    'namespace to watch, repeatable; * for all (default: the pod namespace)',
    collect,
    [],
  )
  .option('--lease-name <name>', 'leader-election Lease', 'muse-operator')
  .option('--lease-namespace <name>', 'namespace of the Lease (default: the pod namespace)')
  .option('--identity <id>', 'this replica in the Lease (default: the pod name)')
  .option('--resync-seconds <n>', 'full re-list period', '300')
  .option('--lease-duration-seconds <n>', 'how long a silent leader keeps the Lease', '15')
  .option('--kubeconfig <path>', 'kubeconfig file (default: in-cluster, then KUBECONFIG)')
  .addOption(
    new Option('--metrics-port <port>', 'port of /metrics, /healthz, /readyz')
      .env('MUSE_OPERATOR_METRICS_PORT')
      .default('9467'),
  )
  .action(
    withConfig<OperatorCommandOptions>(async (c, o) =>
      (await import('./commands/operator.ts')).runOperator(c, o),
    ),
  );
program
  .command('rotate-jwt-secret')
  .description('write a new MUSE_JWT_SECRET into its Secret and restart the API and worker Deployments')
  .requiredOption('--namespace <name>', 'namespace of the release')
  .requiredOption('--secret <name>', 'the Secret holding MUSE_JWT_SECRET')
  .option('--key <key>', 'its key in the Secret', 'jwt-secret')
  .option('--release <name>', 'Helm release whose content-api, chat-api and worker Deployments are restarted')
  .option('--selector <labels>', 'label selector of the Deployments to restart instead')
  .option('--no-wait', 'do not wait for the rollouts')
  .option('--timeout <seconds>', 'how long to wait for the rollouts', '600')
  .option('--kubeconfig <path>', 'kubeconfig file (default: in-cluster, then KUBECONFIG)')
  .action(
    withConfig<RotateCommandOptions>(async (_config, options) =>
      (await import('./commands/rotate-jwt-secret.ts')).runRotateJwtSecret(options),
    ),
  );

const admin = program.command('admin').description('administer accounts from the shell');
admin
  .command('grant')
  .description('make the account of a phone number an administrator (registering it if needed)')
  .requiredOption('--phone <number>', '11-digit mainland mobile number')
  .action(
    withConfig<{ phone: string }>(async (config, options) =>
      (await import('./commands/admin.ts')).runAdminGrant(config, options.phone),
    ),
  );

const secrets = program.command('secrets').description('stored secrets (MUSE_SECRETS_KEY)');
secrets
  .command('rotate')
  .description('reseal every stored secret under the first key of MUSE_SECRETS_KEY')
  .action(withConfig(async (c) => (await import('./commands/secrets.ts')).runSecretsRotate(c)));

await program.parseAsync();
