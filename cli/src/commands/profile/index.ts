import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { listCommand } from './list.ts';
import { useCommand } from './use.ts';
import { removeCommand } from './remove.ts';

export function profileCommand(f: Factory): Command {
  return new Command('profile')
    .description('Switch between servers and accounts')
    .addCommand(listCommand(f))
    .addCommand(useCommand(f))
    .addCommand(removeCommand(f));
}
