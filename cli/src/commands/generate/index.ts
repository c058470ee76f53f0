import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { imageCommand } from './image.ts';
import { videoCommand } from './video.ts';
import { textCommand } from './text.ts';

export function generateCommand(f: Factory): Command {
  return new Command('generate')
    .description('Generate images, videos and texts (paid in credits)')
    .addCommand(imageCommand(f))
    .addCommand(videoCommand(f))
    .addCommand(textCommand(f));
}
