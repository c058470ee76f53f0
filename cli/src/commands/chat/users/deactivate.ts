import { Command } from 'commander';
import type { Factory } from '../../../factory.ts';
import { userId } from '../calls.ts';

export interface DeactivateOptions {
  userId: string;
}

/** Logs the user out everywhere and refuses their API key until reactivated. */
export async function run(options: DeactivateOptions, f: Factory): Promise<void> {
  await f.chat().DELETE('/api/v1/users/{user}', { params: { path: { user: userId(options.userId) } } });
  f.printer().success(`Deactivated user ${options.userId}`);
}

export function deactivateCommand(f: Factory): Command {
  return new Command('deactivate')
    .description('Deactivate a user (administrators)')
    .argument('<user-id>', 'user id')
    .action((userId: string) => run({ userId }, f));
}
