import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { listCommand } from './list.ts';
import { getCommand } from './get.ts';
import { refundCommand } from './refund.ts';

export function paymentsCommand(f: Factory): Command {
  return new Command('payments')
    .description('Top-up payments: list, show, refund (administrators)')
    .addCommand(listCommand(f))
    .addCommand(getCommand(f))
    .addCommand(refundCommand(f));
}
