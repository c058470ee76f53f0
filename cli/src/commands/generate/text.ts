import type { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { generate, type GenerateOptions } from './generate.ts';
import { generateCommandBase } from './flags.ts';

export type TextOptions = Omit<GenerateOptions, 'count' | 'aspectRatio' | 'duration' | 'reference'>;

export function run(options: TextOptions, f: Factory): Promise<void> {
  return generate('text', options, f);
}

export function textCommand(f: Factory): Command {
  return generateCommandBase('text', 'Generate a text (cost: base cost)').action((options: TextOptions) =>
    run(options, f),
  );
}
