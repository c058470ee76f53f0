import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { uploadFile } from './shared.ts';

export interface UploadOptions {
  path: string;
  name?: string;
  public?: boolean;
}

export async function run(options: UploadOptions, f: Factory): Promise<void> {
  const file = await uploadFile(f, options.path, {
    ...(options.name ? { name: options.name } : {}),
    ...(options.public ? { visibility: 'public' as const } : {}),
  });
  f.printer().success(`Uploaded ${options.path} as ${file.id}`);
  f.printer().record(file);
}

export function uploadCommand(f: Factory): Command {
  return new Command('upload')
    .description('Upload a local file')
    .argument('<path>', 'local file')
    .option('--name <name>', 'name to store (default: the file name)')
    .option('--public', 'readable by every user')
    .action((path: string, options: Omit<UploadOptions, 'path'>) => run({ ...options, path }, f));
}
