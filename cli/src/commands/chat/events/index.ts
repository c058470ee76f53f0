import { Command } from 'commander';
import type { Factory } from '../../../factory.ts';
import { tailCommand } from './tail.ts';

export function chatEventsCommand(f: Factory): Command {
  return new Command('events').description('Your real-time events').addCommand(tailCommand(f));
}
