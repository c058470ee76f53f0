import { Argument, Command } from 'commander';
import type { Factory } from '../../../factory.ts';
import { ROLES } from '../calls.ts';

export interface SetRoleOptions {
  user: string;
  role: keyof typeof ROLES;
}

export async function run(options: SetRoleOptions, f: Factory): Promise<void> {
  await f.chat().PATCH('/api/v1/users/{user}', {
    params: { path: { user: options.user } },
    body: { role: ROLES[options.role] },
  });
  f.printer().success(`User ${options.user} is now ${options.role}`);
}

export function setRoleCommand(f: Factory): Command {
  return new Command('set-role')
    .description("Change a user's role (only owners grant or remove owner)")
    .argument('<user>', 'user id or email')
    .addArgument(new Argument('<role>', 'new role').choices(Object.keys(ROLES)))
    .action((user: string, role: SetRoleOptions['role']) => run({ user, role }, f));
}
