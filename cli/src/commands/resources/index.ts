import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { RESOURCE_NAMES } from './catalog.ts';
import { listCommand } from './list.ts';
import { getCommand } from './get.ts';
import { createCommand } from './create.ts';
import { updateCommand } from './update.ts';
import { deleteCommand } from './delete.ts';

export function resourcesCommand(f: Factory): Command {
  return new Command('resources')
    .description('Declared resources: list, get, create, update, delete')
    .addHelpText('after', `\nResources: ${RESOURCE_NAMES.join(', ')}`)
    .addCommand(listCommand(f))
    .addCommand(getCommand(f))
    .addCommand(createCommand(f))
    .addCommand(updateCommand(f))
    .addCommand(deleteCommand(f));
}
