import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { listCommand } from './list.ts';
import { getCommand } from './get.ts';
import { addCommand } from './add.ts';
import { updateCommand } from './update.ts';
import { disableCommand } from './disable.ts';
import { schemaCommand } from './schema.ts';

export function generatorsCommand(f: Factory): Command {
  return new Command('generators')
    .description('Generators: list; add, change, disable (administrators)')
    .addCommand(listCommand(f))
    .addCommand(getCommand(f))
    .addCommand(addCommand(f))
    .addCommand(updateCommand(f))
    .addCommand(disableCommand(f))
    .addCommand(schemaCommand(f));
}
