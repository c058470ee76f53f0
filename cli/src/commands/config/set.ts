import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { parseSettings } from '../shared/pairs.ts';

export interface SetOptions {
  pairs: string[];
}

/** Changes settings of the runtime configuration; every API process uses them from its next request. */
export async function run(options: SetOptions, f: Factory): Promise<void> {
  const changes = parseSettings(options.pairs);
  const config = (await f.content().PATCH('/api/v1/server-config', { body: changes })).data;
  f.printer().success(`Updated ${Object.keys(changes).join(', ')}`);
  f.printer().record(config);
}

export function setCommand(f: Factory): Command {
  return new Command('set')
    .description('Change runtime settings: muse config set default_credit_quota=50 code_ttl_seconds=600')
    .argument('<KEY=VALUE...>', 'settings to change')
    .action((pairs: string[]) => run({ pairs }, f));
}
