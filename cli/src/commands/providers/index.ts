import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { listCommand } from './list.ts';
import { getCommand } from './get.ts';
import { addCommand } from './add.ts';
import { updateCommand } from './update.ts';
import { removeCommand } from './remove.ts';

export function providersCommand(f: Factory): Command {
  return new Command('providers')
    .description('Login code providers, SMS and voice (administrators)')
    .addCommand(listCommand(f))
    .addCommand(getCommand(f))
    .addCommand(addCommand(f))
    .addCommand(updateCommand(f))
    .addCommand(removeCommand(f));
}
