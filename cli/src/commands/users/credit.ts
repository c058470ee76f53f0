import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { usageError } from '../../errors.ts';
import { updateUser } from './update.ts';

export interface CreditOptions {
  id: string;
  amount: string;
  reason: string;
  reference?: string;
}

/**
 * Adds or removes credits through the ledger. With `--reference`, repeating the same adjustment
 * moves credits once, so a retried script cannot pay twice.
 */
export async function run(options: CreditOptions, f: Factory): Promise<void> {
  const amount = Number(options.amount);
  if (!/^[+-]?\d+$/.test(options.amount) || amount === 0) {
    throw usageError(`"${options.amount}" is not a non-zero whole number of credits`, 'e.g. +100 or -20');
  }
  await updateUser(
    f,
    options.id,
    {
      credit_adjustment: {
        amount,
        reason: options.reason,
        ...(options.reference ? { reference: options.reference } : {}),
      },
    },
    `${amount > 0 ? 'Added' : 'Removed'} ${Math.abs(amount)} credits:`,
  );
}

export function creditCommand(f: Factory): Command {
  return new Command('credit')
    .description('Add (+N) or remove (-N) credits: muse users credit <id> +100 --reason "refund for #42"')
    .argument('<user>', 'user id or phone number')
    .argument('<amount>', 'credits to add (+N) or remove (-N)')
    .requiredOption('--reason <text>', 'why, recorded in the ledger')
    .option('--reference <key>', 'makes the adjustment happen once however often it is sent')
    .action((id: string, amount: string, options: { reason: string; reference?: string }) =>
      run({ id, amount, ...options }, f),
    );
}
