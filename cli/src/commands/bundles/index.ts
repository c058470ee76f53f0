import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { listCommand } from './list.ts';
import { addCommand } from './add.ts';
import { updateCommand } from './update.ts';

export function bundlesCommand(f: Factory): Command {
  return new Command('bundles')
    .description('Credit bundles for sale; add, change (administrators)')
    .addCommand(listCommand(f))
    .addCommand(addCommand(f))
    .addCommand(updateCommand(f));
}
