import { Command } from 'commander';
import { ApiError } from '@muse/sdk';
import type { Factory } from '../../factory.ts';
import { CliError } from '../../errors.ts';
import { positiveInteger } from '../shared/lists.ts';
import { money } from './shared.ts';

export interface RefundOptions {
  id: string;
  amountCents?: number;
  force?: boolean;
  reason?: string;
}

/**
 * Refunds a paid payment, wholly (default) or `--amount-cents` of it: the credits are taken back
 * through the ledger, then the provider refunds the money.
 */
export async function run(options: RefundOptions, f: Factory): Promise<void> {
  const { data } = await f
    .content()
    .POST('/api/v1/payments/{id}/refunds', {
      params: { path: { id: options.id } },
      body: {
        ...(options.amountCents !== undefined ? { amount_cents: options.amountCents } : {}),
        ...(options.force ? { force: true } : {}),
        ...(options.reason !== undefined ? { reason: options.reason } : {}),
      },
    })
    .catch((error: unknown) => {
      throw withRefundHint(error, options.id);
    });
  f.printer().success(
    `Refunded ${money(data.refunded_cents, data.currency)} of ${money(data.price_cents, data.currency)} so far; ` +
      `${data.refunded_credits} credits taken back`,
  );
  f.printer().record(data);
}

export function refundCommand(f: Factory): Command {
  return new Command('refund')
    .description('Refund a paid payment, wholly or in part (administrators)')
    .argument('<id>', 'payment id')
    .option('--amount-cents <n>', 'refund this much (default: what is left)', positiveInteger)
    .option('--force', 'refund even if the user spent the credits (their balance goes to 0 at most)')
    .option('--reason <text>', 'sent to the provider')
    .action((id: string, options: Omit<RefundOptions, 'id'>) => run({ ...options, id }, f));
}

/** The refusals an administrator can act on, with what to do. */
function withRefundHint(error: unknown, id: string): unknown {
  if (!(error instanceof ApiError)) return error;
  const hint =
    error.code === 'refund_exceeds_balance'
      ? 'the user has spent the credits; add --force to refund anyway (their balance goes to 0 at most)'
      : error.status === 502
        ? `the provider refused or did not answer; see the payment with muse payments get ${id}`
        : undefined;
  if (!hint) return error;
  return new CliError(error.message, { code: error.code, status: error.status, hint });
}
