import { randomUUID } from 'node:crypto';
import type { Transaction } from 'sequelize';
import {
  AppError,
  ConflictError,
  NotFoundError,
  ValidationError,
  type Sequelize,
  exec,
  one,
  rows,
  transact,
} from '@muse/core';
import type { CurrentUser } from '../auth/authenticate.ts';
import { postEntry } from '../ledger/ledger.ts';
import { providerAdapter, type PaymentsDeps } from './config.ts';
import { PaymentProviderError } from './orders.ts';
import { findPayment, outTradeNoOf, type PaymentRow } from './transitions.ts';
import { ProviderCallError, type ProviderName } from './providers/types.ts';

export interface RefundBody {
  /** Default: what is left to refund. */
  amount_cents?: number;
  /** Refund although the user has spent the credits: the balance is taken down to zero at most. */
  force?: boolean;
  reason?: string;
}

/** The refund would take more credits than the user holds. */
export class RefundWouldOverdrawError extends AppError {
  constructor(balance: number, credits: number) {
    super(
      409,
      'refund_exceeds_balance',
      `The refund takes back ${credits} credits and the balance is ${balance}; send force: true to refund anyway`,
      { details: { balance, credits } },
    );
  }
}

export interface RefundDeps extends PaymentsDeps {
  /** Starts the refund's workflow, which asks the provider again until it answers. */
  retry?(refundId: string): Promise<void>;
}

/**
 * paid → (partially) refunded. The credits are taken back first, in the transaction that
 * reserves the refund (so they cannot be spent while the provider is asked), through a ledger
 * debit with reference `payment-refund:<refund id>`; then the provider refunds the money. A
 * provider that refuses gets the debit reversed and the reservation released. Credits taken back
 * are proportional to the amount (the rest, on the refund that completes the price). A provider
 * that does not answer leaves the refund pending: its workflow, started before the provider is
 * asked (so a server that dies meanwhile loses nothing), asks again until it answers.
 */
export async function refundPayment(
  deps: RefundDeps,
  admin: CurrentUser,
  paymentId: string,
  body: RefundBody,
): Promise<PaymentRow> {
  const refundId = await transact(deps.db, (transaction) =>
    reserve(deps.db, transaction, admin, paymentId, body),
  );
  await deps.retry?.(refundId);
  let outcome;
  try {
    outcome = await settleRefund(deps, refundId);
  } catch (error) {
    deps.logger.error({ err: error, paymentId, refundId }, 'payment refund: no answer from the provider');
    throw new PaymentProviderError(
      `The provider did not answer; refund ${refundId} stays pending (the credits stay taken) ` +
        (deps.retry
          ? 'and is asked again until the provider answers'
          : 'and must be checked with the provider'),
    );
  }
  if (outcome.status === 'failed')
    throw new PaymentProviderError(`The provider refused the refund: ${outcome.failure_reason ?? ''}`);
  return (await findPayment(deps.db, paymentId))!;
}

interface RefundRow {
  id: string;
  payment_id: string;
  amount_cents: number;
  credits: number;
  status: 'pending' | 'succeeded' | 'failed';
  reason: string;
  failure_reason: string | null;
}

/**
 * Asks the provider for a reserved refund, under the refund's own number (WeChat Pay
 * `out_refund_no`, Alipay `out_request_no`), which both providers take as the same refund however
 * often it is sent. Answers the refund once it succeeded or was refused (then released); throws
 * when the provider did not answer, for the caller or the workflow to ask again. A refund already
 * settled is answered as it is, so repeating this step is safe.
 */
export async function settleRefund(
  deps: PaymentsDeps,
  refundId: string,
): Promise<Pick<RefundRow, 'status' | 'failure_reason'>> {
  const refund = await findRefund(deps.db, refundId);
  if (!refund || refund.status !== 'pending')
    return refund ?? { status: 'failed', failure_reason: 'no such refund' };
  const payment = (await findPayment(deps.db, refund.payment_id))!;
  try {
    const adapter = await providerAdapter(deps, payment.provider as ProviderName);
    await adapter.refund({
      outTradeNo: outTradeNoOf(payment.id),
      outRefundNo: outTradeNoOf(refund.id),
      amountCents: refund.amount_cents,
      totalCents: payment.price_cents,
      reason: refund.reason,
    });
  } catch (error) {
    if (!(error instanceof ProviderCallError)) throw error;
    await transact(deps.db, (transaction) => release(deps.db, transaction, refundId, error.message));
    deps.logger.warn({ paymentId: payment.id, refundId, reason: error.message }, 'payment refund refused');
    return { status: 'failed', failure_reason: error.message };
  }
  await exec(
    deps.db,
    `UPDATE content.payment_refunds SET status = 'succeeded', updated_at = now() WHERE id = :id AND status = 'pending'`,
    { id: refundId },
  );
  deps.logger.info({ paymentId: payment.id, refundId, amountCents: refund.amount_cents }, 'payment refunded');
  return { status: 'succeeded', failure_reason: null };
}

async function findRefund(
  db: Sequelize,
  id: string,
  transaction?: Transaction,
): Promise<RefundRow | undefined> {
  const row = await one<RefundRow>(
    db,
    `SELECT * FROM content.payment_refunds WHERE id = :id${transaction ? ' FOR UPDATE' : ''}`,
    { id },
    transaction,
  );
  return row;
}

async function reserve(
  db: Sequelize,
  transaction: Transaction,
  admin: CurrentUser,
  paymentId: string,
  body: RefundBody,
): Promise<string> {
  const payment = await findPayment(db, paymentId, transaction);
  if (!payment) throw new NotFoundError('No such payment');
  if (payment.provider === 'manual')
    throw new ConflictError('A manually settled payment has no provider to refund it');
  if (payment.status === 'refunded') throw new ConflictError('This payment is already fully refunded');
  if (payment.status !== 'paid')
    throw new ConflictError(`Only a paid payment can be refunded; this one is ${payment.status}`);
  const left = payment.price_cents - payment.refunded_cents;
  const amountCents = body.amount_cents ?? left;
  if (amountCents > left)
    throw new ConflictError(`Only ${left} of ${payment.price_cents} cents are left to refund`, {
      refundable_cents: left,
    });
  const credits =
    amountCents === left
      ? payment.credits - payment.refunded_credits
      : Math.floor((payment.credits * amountCents) / payment.price_cents);
  const user = await one<{ balance: string }>(
    db,
    'SELECT balance FROM content.users WHERE id = :id FOR UPDATE',
    { id: payment.owner_id },
    transaction,
  );
  const balance = Number(user?.balance ?? 0);
  if (credits > balance && !body.force) throw new RefundWouldOverdrawError(balance, credits);
  const debit = Math.min(credits, balance);
  const refundId = randomUUID();
  await exec(
    db,
    `INSERT INTO content.payment_refunds (id, payment_id, amount_cents, credits, forced, reason, requested_by)
     VALUES (:refundId, :paymentId, :amountCents, :debit, :forced, :reason, :adminId)`,
    {
      refundId,
      paymentId,
      amountCents,
      debit,
      forced: body.force ?? false,
      reason: body.reason ?? '',
      adminId: admin.id,
    },
    transaction,
  );
  await moveRefunded(db, transaction, paymentId, amountCents, debit);
  if (debit > 0)
    await postEntry(db, transaction, {
      userId: payment.owner_id,
      amount: -debit,
      kind: 'adjustment',
      reference: `payment-refund:${refundId}`,
      description: `Refund of payment ${paymentId}`,
    });
  return refundId;
}

/** The provider refused: the reservation is released and the credits are given back, once. */
async function release(
  db: Sequelize,
  transaction: Transaction,
  refundId: string,
  reason: string,
): Promise<void> {
  const refund = await findRefund(db, refundId, transaction);
  if (refund?.status !== 'pending') return;
  await exec(
    db,
    `UPDATE content.payment_refunds SET status = 'failed', failure_reason = :reason, updated_at = now() WHERE id = :id`,
    { id: refundId, reason },
    transaction,
  );
  const payment = (await findPayment(db, refund.payment_id, transaction))!;
  await moveRefunded(db, transaction, payment.id, -refund.amount_cents, -refund.credits);
  if (refund.credits > 0)
    await postEntry(db, transaction, {
      userId: payment.owner_id,
      amount: refund.credits,
      kind: 'adjustment',
      reference: `payment-refund-reversal:${refundId}`,
      description: `Refund of payment ${payment.id} refused by the provider`,
    });
}

/** Refunded totals move, and the status with them: refunded once the whole price is refunded. */
async function moveRefunded(
  db: Sequelize,
  transaction: Transaction,
  paymentId: string,
  cents: number,
  credits: number,
): Promise<void> {
  await exec(
    db,
    `UPDATE content.payments
        SET refunded_cents = refunded_cents + :cents, refunded_credits = refunded_credits + :credits,
            status = CASE WHEN refunded_cents + :cents = price_cents THEN 'refunded' ELSE 'paid' END,
            updated_at = now()
      WHERE id = :paymentId`,
    { paymentId, cents, credits },
    transaction,
  );
}

export interface PaymentStatistics {
  by_status: Record<string, { count: number; amount_cents: number; credits: number }>;
  paid_cents: number;
  refunded_cents: number;
  credits_sold: number;
  credits_refunded: number;
  needs_refund: number;
  pending_refunds: { count: number; amount_cents: number; credits: number };
}

/** Totals over payments created in the window (all time by default), for administrators. */
export async function paymentStatistics(
  db: Sequelize,
  window: { created_after?: string; created_before?: string },
): Promise<PaymentStatistics> {
  const bounds = {
    after: instant(window.created_after, 'created_after'),
    before: instant(window.created_before, 'created_before'),
  };
  const found = await rows<{
    status: string;
    count: string;
    amount_cents: string;
    credits: string;
    refunded_cents: string;
    refunded_credits: string;
    needs_refund: string;
  }>(
    db,
    `SELECT status, count(*) AS count, coalesce(sum(price_cents), 0) AS amount_cents,
            coalesce(sum(credits), 0) AS credits, coalesce(sum(refunded_cents), 0) AS refunded_cents,
            coalesce(sum(refunded_credits), 0) AS refunded_credits, count(*) FILTER (WHERE needs_refund) AS needs_refund
       FROM content.payments
      WHERE (CAST(:after AS timestamptz) IS NULL OR created_at >= CAST(:after AS timestamptz))
        AND (CAST(:before AS timestamptz) IS NULL OR created_at < CAST(:before AS timestamptz))
      GROUP BY status`,
    bounds,
  );
  const stats: PaymentStatistics = {
    by_status: {},
    paid_cents: 0,
    refunded_cents: 0,
    credits_sold: 0,
    credits_refunded: 0,
    needs_refund: 0,
    pending_refunds: await pendingRefunds(db, bounds),
  };
  for (const row of found) {
    stats.by_status[row.status] = {
      count: Number(row.count),
      amount_cents: Number(row.amount_cents),
      credits: Number(row.credits),
    };
    if (row.status === 'paid' || row.status === 'refunded') {
      stats.paid_cents += Number(row.amount_cents);
      stats.credits_sold += Number(row.credits);
    }
    stats.refunded_cents += Number(row.refunded_cents);
    stats.credits_refunded += Number(row.refunded_credits);
    stats.needs_refund += Number(row.needs_refund);
  }
  return stats;
}

/**
 * Refunds the provider has not answered yet (their credits are taken; their workflow asks until
 * it answers): what an administrator watches during a provider outage.
 */
async function pendingRefunds(
  db: Sequelize,
  bounds: { after: string | null; before: string | null },
): Promise<PaymentStatistics['pending_refunds']> {
  const found = await one<{ count: string; amount_cents: string; credits: string }>(
    db,
    `SELECT count(*) AS count, coalesce(sum(r.amount_cents), 0) AS amount_cents, coalesce(sum(r.credits), 0) AS credits
       FROM content.payment_refunds r JOIN content.payments p ON p.id = r.payment_id
      WHERE r.status = 'pending'
        AND (CAST(:after AS timestamptz) IS NULL OR p.created_at >= CAST(:after AS timestamptz))
        AND (CAST(:before AS timestamptz) IS NULL OR p.created_at < CAST(:before AS timestamptz))`,
    bounds,
  );
  return {
    count: Number(found!.count),
    amount_cents: Number(found!.amount_cents),
    credits: Number(found!.credits),
  };
}

/** A date-time the schema let through, as Postgres reads it (any offset JS accepts, normalised to UTC). */
function instant(value: string | undefined, name: string): string | null {
  if (value === undefined) return null;
  const date = new Date(value);
  if (Number.isNaN(date.getTime()) || date.getUTCFullYear() > 9999)
    throw new ValidationError('The request is not valid', [
      { path: `/query/${name}`, message: 'not a date-time' },
    ]);
  return date.toISOString();
}
