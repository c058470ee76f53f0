#!/usr/bin/env node
import { Command } from 'commander';
import { ConfigError, loadConfig, type Config } from '@muse/core';
import { runApi } from './commands/api.ts';
import { runWorker } from './commands/worker.ts';
import { runMigrate } from './commands/migrate.ts';
import { runDev } from './commands/dev.ts';
import { runAdminGrant } from './commands/admin.ts';
import { registerChatCommands } from './commands/chat.ts';
import { runSecretsRotate } from './commands/secrets.ts';

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

const program = new Command('muse-server').description('Muse platform server');
program
  .command('content-api')
  .description('serve the content API')
  .action(withConfig((c) => runApi('content-api', c)));
program
  .command('chat-api')
  .description('serve the messaging API')
  .action(withConfig((c) => runApi('chat-api', c)));
program.command('worker').description('run the Temporal worker').action(withConfig(runWorker));
program.command('migrate').description('apply database migrations').action(withConfig(runMigrate));
program
  .command('dev')
  .description('run the whole platform locally, starting embedded Postgres and Temporal when not configured')
  .action(withConfig(runDev));
registerChatCommands(program, withConfig);

const admin = program.command('admin').description('administer accounts from the shell');
admin
  .command('grant')
  .description('make the account of a phone number an administrator (registering it if needed)')
  .requiredOption('--phone <number>', '11-digit mainland mobile number')
  .action(withConfig<{ phone: string }>((config, options) => runAdminGrant(config, options.phone)));

const secrets = program.command('secrets').description('stored secrets (MUSE_SECRETS_KEY)');
secrets
  .command('rotate')
  .description('reseal every stored secret under the first key of MUSE_SECRETS_KEY')
  .action(withConfig(runSecretsRotate));

await program.parseAsync();
