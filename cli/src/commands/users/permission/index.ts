import { Command } from 'commander';
import type { Factory } from '../../../factory.ts';
import { addCommand } from './add.ts';
import { removeCommand } from './remove.ts';

export function permissionCommand(f: Factory): Command {
  return new Command('permission')
    .description("Grant or revoke an account's resource:operation:scope permissions")
    .addCommand(addCommand(f))
    .addCommand(removeCommand(f));
}
