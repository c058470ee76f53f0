import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { getCommand } from './get.ts';
import { setCommand } from './set.ts';

export function paymentApiCommand(f: Factory): Command {
  return new Command('payment-api')
    .description('Payment-provider configuration (administrators)')
    .addCommand(getCommand(f))
    .addCommand(setCommand(f));
}
