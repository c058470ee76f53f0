import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { listCommand } from './list.ts';
import { getCommand } from './get.ts';
import { downloadCommand } from './download.ts';
import { uploadCommand } from './upload.ts';
import { rmCommand } from './rm.ts';

export function filesCommand(f: Factory): Command {
  return new Command('files')
    .description('Your files and results: list, download, upload, delete')
    .addCommand(listCommand(f))
    .addCommand(getCommand(f))
    .addCommand(downloadCommand(f))
    .addCommand(uploadCommand(f))
    .addCommand(rmCommand(f));
}
