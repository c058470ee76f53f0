import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { userId } from './shared.ts';
import { usageError } from '../../errors.ts';

export interface DeleteOptions {
  id: string;
  yes?: boolean;
}

/** Deletes an account and everything it owns: asks first on a terminal, needs --yes elsewhere. */
export async function run(options: DeleteOptions, f: Factory): Promise<void> {
  if (!options.yes) {
    if (!f.io.stdinIsTTY) throw usageError('deleting an account needs confirmation', 'pass --yes');
    const answer = await f.prompter.input(
      `Delete account ${options.id} and everything it owns? Type the id to confirm: `,
    );
    if (answer !== options.id) throw usageError('not confirmed; nothing was deleted');
  }
  const id = await userId(f, options.id);
  await f.content().DELETE('/api/v1/users/{id}', { params: { path: { id } } });
  f.printer().success(`Deleted account ${options.id}`);
}

export function deleteCommand(f: Factory): Command {
  return new Command('delete')
    .description('Delete an account and everything it owns')
    .argument('<user>', 'user id or phone number')
    .option('-y, --yes', 'do not ask for confirmation')
    .action((id: string, options: { yes?: boolean }) => run({ id, ...options }, f));
}
