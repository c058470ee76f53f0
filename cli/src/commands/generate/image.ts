import type { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { positiveInteger } from '../shared/lists.ts';
import { generate, type GenerateOptions } from './generate.ts';
import { generateCommandBase } from './flags.ts';

export type ImageOptions = Omit<GenerateOptions, 'duration' | 'reference'>;

export function run(options: ImageOptions, f: Factory): Promise<void> {
  return generate('image', options, f);
}

export function imageCommand(f: Factory): Command {
  return generateCommandBase('image', 'Generate images (cost: base cost; × count under per-unit pricing)')
    .option('--count <n>', 'how many images', positiveInteger)
    .option('--aspect-ratio <w:h>', 'e.g. 16:9')
    .action((options: ImageOptions) => run(options, f));
}
