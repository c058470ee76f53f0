import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { listCommand } from './list.ts';
import { getCommand } from './get.ts';
import { statsCommand } from './stats.ts';
import { banCommand } from './ban.ts';
import { unbanCommand } from './unban.ts';
import { grantAdminCommand } from './grant-admin.ts';
import { revokeAdminCommand } from './revoke-admin.ts';
import { creditCommand } from './credit.ts';
import { deleteCommand } from './delete.ts';
import { permissionCommand } from './permission/index.ts';

export function usersCommand(f: Factory): Command {
  return new Command('users')
    .description('Accounts: ban, administrators, credits, permissions')
    .addCommand(listCommand(f))
    .addCommand(getCommand(f))
    .addCommand(statsCommand(f))
    .addCommand(banCommand(f))
    .addCommand(unbanCommand(f))
    .addCommand(grantAdminCommand(f))
    .addCommand(revokeAdminCommand(f))
    .addCommand(creditCommand(f))
    .addCommand(deleteCommand(f))
    .addCommand(permissionCommand(f));
}
