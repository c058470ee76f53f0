import { Command } from 'commander';
import type { Factory } from '../../../factory.ts';
import { collect } from '../../shared/pairs.ts';
import { principals } from '../calls.ts';

export interface SubscribeOptions {
  channels: string[];
  user?: string[];
  description?: string;
  private?: boolean;
}

/** Subscribes you (or `--user`s) to channels, creating the missing ones. */
export async function run(options: SubscribeOptions, f: Factory): Promise<void> {
  const { data } = await f.chat().POST('/api/v1/users/me/subscriptions', {
    body: {
      subscriptions: options.channels.map((name) => ({
        name,
        ...(options.description ? { description: options.description } : {}),
      })),
      ...(options.user?.length ? { principals: principals(options.user) } : {}),
      ...(options.private ? { invite_only: true } : {}),
    },
  });
  if (f.printer().format !== 'table') return f.printer().data(data);
  f.printer().success(`Subscribed to ${options.channels.join(', ')}`);
}

export function subscribeCommand(f: Factory): Command {
  return new Command('subscribe')
    .description('Subscribe to channels, creating missing ones')
    .argument('<channel...>', 'channel names')
    .option('--user <id|email>', 'subscribe this user instead of you (repeatable)', collect)
    .option('--description <text>', 'description of channels this creates')
    .option('--private', 'channels this creates are invite-only')
    .action((channels: string[], options: Omit<SubscribeOptions, 'channels'>) =>
      run({ ...options, channels }, f),
    );
}
