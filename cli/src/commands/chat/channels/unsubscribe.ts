import { Command } from 'commander';
import type { Factory } from '../../../factory.ts';
import { collect } from '../../shared/pairs.ts';
import { principals } from '../calls.ts';

export interface UnsubscribeOptions {
  channels: string[];
  user?: string[];
}

export async function run(options: UnsubscribeOptions, f: Factory): Promise<void> {
  const { data } = await f.chat().DELETE('/api/v1/users/me/subscriptions', {
    params: {
      query: {
        subscriptions: options.channels,
        ...(options.user?.length ? { principals: principals(options.user) } : {}),
      },
    },
  });
  if (f.printer().format !== 'table') return f.printer().data(data);
  f.printer().success(`Unsubscribed from ${options.channels.join(', ')}`);
}

export function unsubscribeCommand(f: Factory): Command {
  return new Command('unsubscribe')
    .description('Unsubscribe from channels')
    .argument('<channel...>', 'channel names')
    .option('--user <id|email>', 'unsubscribe this user instead of you (repeatable)', collect)
    .action((channels: string[], options: { user?: string[] }) => run({ ...options, channels }, f));
}
