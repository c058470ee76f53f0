import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { usageError } from '../../errors.ts';
import { collect, parseSettings, readSecrets } from '../shared/pairs.ts';

export interface SetOptions {
  pairs: string[];
  secret?: string[];
}

export async function run(options: SetOptions, f: Factory): Promise<void> {
  const secrets = await readSecrets(options.secret, f);
  const body = { ...parseSettings(options.pairs), ...(Object.keys(secrets).length ? { secrets } : {}) };
  if (Object.keys(body).length === 0)
    throw usageError('nothing to change', 'see muse payment-api set --help');
  const { data } = await f.content().PATCH('/api/v1/payment-api', { body });
  f.printer().success('Updated the payment-provider configuration');
  f.printer().record(data);
}

export function setCommand(f: Factory): Command {
  return new Command('set')
    .description(
      'Change the payment-provider configuration: muse payment-api set provider=stripe enabled=true --secret api_key=@key.txt',
    )
    .argument('[KEY=VALUE...]', 'settings to change')
    .option('--secret <KEY=@FILE|KEY=->', 'a secret read from a file or stdin (repeatable)', collect)
    .action((pairs: string[], options: { secret?: string[] }) => run({ pairs, ...options }, f));
}
