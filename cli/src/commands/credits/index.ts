import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { buyCommand } from './buy.ts';

export function creditsCommand(f: Factory): Command {
  return new Command('credits')
    .description('Buy credits: muse credits buy <bundle>')
    .addCommand(buyCommand(f));
}
