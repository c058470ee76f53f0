import { Command } from 'commander';
import type { Factory } from '../../../factory.ts';

export type ListOptions = Record<string, never>;

/** The channels the logged-in user is subscribed to. */
export async function run(_options: ListOptions, f: Factory): Promise<void> {
  const { data } = await f.chat().GET('/api/v1/users/me/subscriptions');
  f.printer().list(data.subscriptions, [
    { header: 'ID', value: (s) => s.stream_id },
    { header: 'NAME', value: (s) => s.name },
    { header: 'PRIVATE', value: (s) => (s.invite_only ? 'yes' : '') },
    { header: 'DESCRIPTION', value: (s) => s.description },
  ]);
}

export function listCommand(f: Factory): Command {
  return new Command('list').description('List the channels you are subscribed to').action(() => run({}, f));
}
