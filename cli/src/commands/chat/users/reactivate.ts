import { Command } from 'commander';
import type { Factory } from '../../../factory.ts';
import { userId } from '../calls.ts';

export interface ReactivateOptions {
  userId: string;
}

export async function run(options: ReactivateOptions, f: Factory): Promise<void> {
  await f
    .chat()
    .POST('/api/v1/users/{user_id}/reactivate', { params: { path: { user_id: userId(options.userId) } } });
  f.printer().success(`Reactivated user ${options.userId}`);
}

export function reactivateCommand(f: Factory): Command {
  return new Command('reactivate')
    .description('Reactivate a deactivated user (administrators)')
    .argument('<user-id>', 'user id')
    .action((userId: string) => run({ userId }, f));
}
