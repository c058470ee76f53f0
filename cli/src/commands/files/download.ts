import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { CliError } from '../../errors.ts';
import { downloadFile, requireDirectory } from './shared.ts';

export interface DownloadOptions {
  ids: string[];
  out: string;
}

export async function run(options: DownloadOptions, f: Factory): Promise<void> {
  requireDirectory(options.out);
  for (const id of options.ids) {
    const file = await f.content().files.get(id);
    if (file.status !== 'completed') {
      throw new CliError(`file ${id} is ${file.status}, there is nothing to download yet`, {
        code: 'not_ready',
        hint:
          file.status === 'failed' ? (file.error_message ?? undefined) : 'wait for it: muse files get ' + id,
      });
    }
    const saved = await downloadFile(f, file, options.out);
    f.printer().success(`Saved ${saved}`);
    if (f.printer().format !== 'table') f.printer().data({ id, path: saved });
  }
}

export function downloadCommand(f: Factory): Command {
  return new Command('download')
    .description('Download files into a folder')
    .argument('<id...>', 'file ids')
    .option('--out <dir>', 'folder to write into', '.')
    .action((ids: string[], options: { out: string }) => run({ ids, ...options }, f));
}
