import { Command, Option } from 'commander';
import { codeProviderTypeValues } from '@muse/sdk/generated/content';
import type { Factory } from '../../factory.ts';
import { collect, parseSettings, readSecrets } from '../shared/pairs.ts';
import { integer } from '../shared/lists.ts';
import type { ProviderConfig, ProviderCreate } from './shared.ts';

export interface AddOptions {
  name: string;
  type: ProviderCreate['type'];
  priority?: number;
  disabled?: boolean;
  config?: string[];
  secret?: string[];
}

/** Adds a code provider; secrets come from files or stdin and are never printed back. */
export async function run(options: AddOptions, f: Factory): Promise<void> {
  const secrets = await readSecrets(options.secret, f);
  const body = {
    name: options.name,
    type: options.type,
    enabled: !options.disabled,
    ...(options.priority !== undefined ? { priority: options.priority } : {}),
    config: parseSettings(options.config) as ProviderConfig,
    ...(Object.keys(secrets).length ? { secrets } : {}),
  };
  // The generated type marks `priority` required because the schema gives it a default; the
  // server fills the default in, so leaving it out is valid.
  const { data } = await f
    .content()
    .POST('/api/v1/verification-code-providers', { body: body as ProviderCreate });
  f.printer().success(`Added code provider ${data.name} (${data.id})`);
  f.printer().record(data);
}

export function addCommand(f: Factory): Command {
  return new Command('add')
    .description(
      'Add a code provider: muse providers add --name hooks --type webhook --config url=https://… --secret signing_secret=@secret.txt',
    )
    .requiredOption('--name <name>', 'unique name')
    .addOption(
      new Option('--type <type>', 'provider type').choices(codeProviderTypeValues).makeOptionMandatory(),
    )
    .option('--priority <n>', 'lower is tried first (default 100)', integer)
    .option('--disabled', 'add it switched off')
    .option('--config <KEY=VALUE>', 'a config field (repeatable)', collect)
    .option('--secret <KEY=@FILE|KEY=->', 'a secret read from a file or stdin (repeatable)', collect)
    .action((options: AddOptions) => run(options, f));
}
