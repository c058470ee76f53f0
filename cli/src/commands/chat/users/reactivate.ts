import { Command } from 'commander';
import type { Factory } from '../../../factory.ts';
import { chat } from '../calls.ts';

export interface ReactivateOptions {
  userId: string;
}

export async function run(options: ReactivateOptions, f: Factory): Promise<void> {
  await chat(f).post(`/api/v1/users/${encodeURIComponent(options.userId)}/reactivate`);
  f.printer().success(`Reactivated user ${options.userId}`);
}

export function reactivateCommand(f: Factory): Command {
  return new Command('reactivate')
    .description('Reactivate a deactivated user (administrators)')
    .argument('<user-id>', 'user id')
    .action((userId: string) => run({ userId }, f));
}
