import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { listCommand } from './list.ts';

export function transactionsCommand(f: Factory): Command {
  return new Command('transactions')
    .description('The credit ledger: charges, refunds, adjustments')
    .addCommand(listCommand(f));
}
