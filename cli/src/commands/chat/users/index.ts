import { Command } from 'commander';
import type { Factory } from '../../../factory.ts';
import { listCommand } from './list.ts';
import { getCommand } from './get.ts';
import { deactivateCommand } from './deactivate.ts';
import { reactivateCommand } from './reactivate.ts';
import { setRoleCommand } from './set-role.ts';

export function chatUsersCommand(f: Factory): Command {
  return new Command('users')
    .description('Users of the organization: list, show, deactivate, reactivate, change role')
    .addCommand(listCommand(f))
    .addCommand(getCommand(f))
    .addCommand(deactivateCommand(f))
    .addCommand(reactivateCommand(f))
    .addCommand(setRoleCommand(f));
}
