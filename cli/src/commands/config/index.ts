import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { getCommand } from './get.ts';
import { setCommand } from './set.ts';

export function configCommand(f: Factory): Command {
  return new Command('config')
    .description("The server's runtime configuration (administrators)")
    .addCommand(getCommand(f))
    .addCommand(setCommand(f));
}
