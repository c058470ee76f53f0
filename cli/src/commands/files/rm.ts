import { Command } from 'commander';
import type { Factory } from '../../factory.ts';

export interface RmOptions {
  ids: string[];
}

export async function run(options: RmOptions, f: Factory): Promise<void> {
  for (const id of options.ids) {
    await f.content().DELETE('/api/v1/files/{file_id}', { params: { path: { file_id: id } } });
    f.printer().success(`Deleted file ${id}`);
  }
}

export function rmCommand(f: Factory): Command {
  return new Command('rm')
    .description('Delete files and their content')
    .argument('<id...>', 'file ids')
    .action((ids: string[]) => run({ ids }, f));
}
