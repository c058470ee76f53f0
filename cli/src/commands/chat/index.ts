import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { loginCommand } from './login.ts';
import { chatUsersCommand } from './users/index.ts';
import { chatChannelsCommand } from './channels/index.ts';
import { sendCommand } from './send.ts';
import { scheduleCommand } from './schedule.ts';
import { chatEventsCommand } from './events/index.ts';

export function chatCommand(f: Factory): Command {
  return new Command('chat')
    .description('Messaging API: log in, users, channels, messages')
    .addCommand(loginCommand(f))
    .addCommand(chatUsersCommand(f))
    .addCommand(chatChannelsCommand(f))
    .addCommand(sendCommand(f))
    .addCommand(scheduleCommand(f))
    .addCommand(chatEventsCommand(f));
}
