import { Command } from 'commander';
import type { Factory } from '../../../factory.ts';
import { listCommand } from './list.ts';
import { subscribeCommand } from './subscribe.ts';
import { unsubscribeCommand } from './unsubscribe.ts';

export function chatChannelsCommand(f: Factory): Command {
  return new Command('channels')
    .description('Channels: list yours, subscribe, unsubscribe')
    .addCommand(listCommand(f))
    .addCommand(subscribeCommand(f))
    .addCommand(unsubscribeCommand(f));
}
