import type { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { positiveInteger } from '../shared/lists.ts';
import { collect } from '../shared/pairs.ts';
import { generate, type GenerateOptions } from './generate.ts';
import { generateCommandBase } from './flags.ts';

export type VideoOptions = Omit<GenerateOptions, 'count' | 'aspectRatio'>;

export function run(options: VideoOptions, f: Factory): Promise<void> {
  return generate('video', options, f);
}

export function videoCommand(f: Factory): Command {
  return generateCommandBase(
    'video',
    'Generate a video (cost: base cost; per started unit of duration under per-unit pricing)',
  )
    .option('--duration <seconds>', 'length in seconds', positiveInteger)
    .option(
      '--reference <file id|path>',
      'a reference file; local files are uploaded first (repeatable)',
      collect,
    )
    .action((options: VideoOptions) => run(options, f));
}
