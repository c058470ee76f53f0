import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { usageError } from '../../errors.ts';
import { collect, parseSettings, readSecrets } from '../shared/pairs.ts';
import { integer } from '../shared/lists.ts';
import { providerId, type ProviderConfig } from './shared.ts';

export interface UpdateOptions {
  provider: string;
  name?: string;
  priority?: number;
  enable?: boolean;
  disable?: boolean;
  config?: string[];
  secret?: string[];
}

/** Changes a provider; `config` and `secrets` are merged into the stored ones by the server. */
export async function run(options: UpdateOptions, f: Factory): Promise<void> {
  if (options.enable && options.disable) throw usageError('--enable and --disable contradict each other');
  const secrets = await readSecrets(options.secret, f);
  const body = {
    ...(options.name !== undefined ? { name: options.name } : {}),
    ...(options.priority !== undefined ? { priority: options.priority } : {}),
    ...(options.enable ? { enabled: true } : options.disable ? { enabled: false } : {}),
    ...(options.config?.length ? { config: parseSettings(options.config) as ProviderConfig } : {}),
    ...(Object.keys(secrets).length ? { secrets } : {}),
  };
  if (Object.keys(body).length === 0)
    throw usageError('nothing to change', 'see muse providers update --help');
  const id = await providerId(f, options.provider);
  const { data } = await f.content().PATCH('/api/v1/verification-code-providers/{id}', {
    params: { path: { id } },
    body,
  });
  f.printer().success(`Updated code provider ${data.name}`);
  f.printer().record(data);
}

export function updateCommand(f: Factory): Command {
  return new Command('update')
    .description('Change a code provider')
    .argument('<provider>', 'id or name')
    .option('--name <name>', 'new name')
    .option('--priority <n>', 'lower is tried first', integer)
    .option('--enable', 'switch it on')
    .option('--disable', 'switch it off')
    .option('--config <KEY=VALUE>', 'a config field to set (repeatable)', collect)
    .option('--secret <KEY=@FILE|KEY=->', 'a secret read from a file or stdin (repeatable)', collect)
    .action((provider: string, options: Omit<UpdateOptions, 'provider'>) => run({ ...options, provider }, f));
}
