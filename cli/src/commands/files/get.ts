import { Command } from 'commander';
import type { Factory } from '../../factory.ts';

export interface GetOptions {
  id: string;
}

/** A file's record: status, error message, and a signed download link once completed. */
export async function run(options: GetOptions, f: Factory): Promise<void> {
  f.printer().record(await f.content().files.get(options.id));
}

export function getCommand(f: Factory): Command {
  return new Command('get')
    .description('Show a file: status, error, download link')
    .argument('<id>', 'file id')
    .action((id: string) => run({ id }, f));
}
