import { Command } from 'commander';
import type { Factory } from '../../factory.ts';

export type StatsOptions = Record<string, never>;

export async function run(_options: StatsOptions, f: Factory): Promise<void> {
  f.printer().record((await f.content().GET('/api/v1/users/stats')).data);
}

export function statsCommand(f: Factory): Command {
  return new Command('stats').description('Account counts (administrators)').action(() => run({}, f));
}
