import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { CliError } from '../../errors.ts';
import { STDOUT, downloadFile, requireDirectory, writeToStdout } from './shared.ts';

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
    if (options.out === STDOUT) {
      await writeToStdout(f, file);
      continue;
    }
    const saved = await downloadFile(f, file, options.out);
    f.printer().success(`Saved ${saved}`);
    if (f.printer().format !== 'table') f.printer().data({ id, path: saved });
  }
}

export function downloadCommand(f: Factory): Command {
  return new Command('download')
    .description('Download files into a folder, or to standard output (--out -)')
    .argument('<id...>', 'file ids')
    .option('--out <dir>', 'folder to write into; - writes the contents to standard output', '.')
    .action((ids: string[], options: { out: string }) => run({ ids, ...options }, f));
}
