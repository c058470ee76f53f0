import type { Transaction } from 'sequelize';
import { type Logger, type Sequelize, exec, one, rows, transact } from '@muse/core';
import { postEntry } from '../ledger/ledger.ts';
import type { ProviderName, ProviderOrderState } from './providers/types.ts';

/**
 * The one owner of a payment's status. A payment moves pending → paid | closed | failed, and
 * paid → refunded (refunds.ts); every change here is a conditional update of the locked row, and
 * the credit of a paid order is the ledger's `topup` entry with reference `payment:<id>` — unique
 * per kind and reference in the schema, so however many notifications and queries confirm the
 * same order at once, it is credited once.
 */
export type PaymentStatus = 'pending' | 'paid' | 'closed' | 'failed' | 'refunded';

export interface PaymentRow {
  id: string;
  owner_id: string;
  bundle_id: string | null;
  credits: number;
  price_cents: number;
  currency: string;
  status: PaymentStatus;
  provider: ProviderName | 'manual';
  provider_reference: string | null;
  code_url: string | null;
  pay_url: string | null;
  expires_at: Date | null;
  paid_at: Date | null;
  closed_at: Date | null;
  refunded_cents: number;
  refunded_credits: number;
  needs_refund: boolean;
  request_hash: string | null;
}

/** Our order number at the providers: the payment id without dashes (32 characters). */
export const outTradeNoOf = (paymentId: string): string => paymentId.replaceAll('-', '');

/** The payment id of an order number, or undefined when it cannot be one of ours. */
export function paymentIdOf(outTradeNo: string): string | undefined {
  const match = /^([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})$/.exec(outTradeNo);
  return match ? match.slice(1).join('-') : undefined;
}

export async function findPayment(
  db: Sequelize,
  id: string,
  transaction?: Transaction,
): Promise<PaymentRow | undefined> {
  const row = await one<PaymentRow>(
    db,
    `SELECT * FROM content.payments WHERE id = :id${transaction ? ' FOR UPDATE' : ''}`,
    { id },
    transaction,
  );
  return row;
}

/** What a confirmation of payment did. */
export type SettleOutcome =
  'credited' | 'already_paid' | 'late' | 'amount_mismatch' | 'provider_mismatch' | 'unknown_order';

/**
 * A provider says the order was paid (a verified notification or a query's answer). A pending
 * order becomes paid and is credited; a paid one is left alone; a closed or failed one credits
 * nothing and is flagged for refund (the payer paid after it expired). An amount other than the
 * order's, or an order of another provider, changes nothing.
 */
export async function settlePaid(
  db: Sequelize,
  logger: Logger,
  provider: ProviderName,
  state: ProviderOrderState,
): Promise<SettleOutcome> {
  const id = paymentIdOf(state.outTradeNo);
  if (!id) return refuse(logger, 'unknown_order', state);
  return transact(db, async (transaction) => {
    const payment = await findPayment(db, id, transaction);
    if (!payment) return refuse(logger, 'unknown_order', state);
    if (payment.provider !== provider) return refuse(logger, 'provider_mismatch', state);
    if (state.amountCents !== payment.price_cents) return refuse(logger, 'amount_mismatch', state);
    if (payment.status === 'paid' || payment.status === 'refunded') return 'already_paid';
    if (payment.status !== 'pending') {
      if (!payment.needs_refund) {
        await update(db, transaction, id, `needs_refund = true, provider_reference = :reference`, {
          reference: state.transactionId ?? null,
        });
        logger.warn(
          { paymentId: id, status: payment.status, transactionId: state.transactionId },
          'payment: paid after it was closed; nothing credited, flagged for refund',
        );
      }
      return 'late';
    }
    await update(db, transaction, id, `status = 'paid', paid_at = now(), provider_reference = :reference`, {
      reference: state.transactionId ?? null,
    });
    await postEntry(db, transaction, {
      userId: payment.owner_id,
      amount: payment.credits,
      kind: 'topup',
      reference: `payment:${id}`,
      description: 'Top-up',
    });
    logger.info({ paymentId: id, credits: payment.credits }, 'payment: paid and credited');
    return 'credited';
  });
}

/** pending → closed (expired or given up). Answers whether this call closed it. */
export function closePending(db: Sequelize, id: string, reason: string): Promise<boolean> {
  return endPending(db, id, 'closed', reason);
}

/**
 * pending → failed (the provider refused the order, reported it failed, or could not be asked).
 * `releaseIdempotencyKey`: the order was never placed for sure, so its key may open a new one.
 */
export function failPending(
  db: Sequelize,
  id: string,
  reason: string,
  options: { releaseIdempotencyKey?: boolean } = {},
): Promise<boolean> {
  return endPending(db, id, 'failed', reason, options.releaseIdempotencyKey ?? false);
}

/** Ends a payment still pending; only one caller can (the status is checked in the same statement). */
async function endPending(
  db: Sequelize,
  id: string,
  status: 'closed' | 'failed',
  reason: string,
  releaseKey = false,
): Promise<boolean> {
  const found = await rows(
    db,
    `UPDATE content.payments SET status = :status, closed_at = now(), failure_reason = :reason, updated_at = now(),
            idempotency_key = CASE WHEN :releaseKey THEN NULL ELSE idempotency_key END
      WHERE id = :id AND status = 'pending' RETURNING id`,
    { id, status, reason, releaseKey },
  );
  return found.length > 0;
}

async function update(
  db: Sequelize,
  transaction: Transaction,
  id: string,
  set: string,
  replacements: Record<string, unknown>,
): Promise<void> {
  await exec(
    db,
    `UPDATE content.payments SET ${set}, updated_at = now() WHERE id = :id`,
    { ...replacements, id },
    transaction,
  );
}

function refuse(logger: Logger, outcome: SettleOutcome, state: ProviderOrderState): SettleOutcome {
  logger.warn(
    { outcome, outTradeNo: state.outTradeNo, amountCents: state.amountCents },
    'payment: confirmation refused; nothing credited',
  );
  return outcome;
}
