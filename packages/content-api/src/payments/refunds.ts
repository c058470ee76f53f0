import { randomUUID } from 'node:crypto';
import { QueryTypes, type Transaction } from 'sequelize';
import { AppError, ConflictError, NotFoundError, type Sequelize } from '@muse/core';
import type { CurrentUser } from '../auth/authenticate.ts';
import { postEntry } from '../ledger/ledger.ts';
import { providerAdapter, type PaymentsDeps } from './config.ts';
import { ProviderUnavailableError } from './orders.ts';
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

interface Reserved {
  refundId: string;
  debit: number;
  amountCents: number;
  payment: PaymentRow;
}

/**
 * paid → (partially) refunded. The credits are taken back first, in the transaction that
 * reserves the refund (so they cannot be spent while the provider is asked), through a ledger
 * debit with reference `payment-refund:<refund id>`; then the provider refunds the money. A
 * provider that refuses gets the debit reversed and the reservation released. Credits taken back
 * are proportional to the amount (the rest, on the refund that completes the price).
 */
export async function refundPayment(
  deps: PaymentsDeps,
  admin: CurrentUser,
  paymentId: string,
  body: RefundBody,
): Promise<PaymentRow> {
  const reserved = await deps.db.transaction((transaction) =>
    reserve(deps.db, transaction, admin, paymentId, body),
  );
  const { payment } = reserved;
  try {
    const adapter = await providerAdapter(deps, payment.provider as ProviderName);
    await adapter.refund({
      outTradeNo: outTradeNoOf(payment.id),
      outRefundNo: outTradeNoOf(reserved.refundId),
      amountCents: reserved.amountCents,
      totalCents: payment.price_cents,
      reason: body.reason ?? '',
    });
  } catch (error) {
    if (!(error instanceof ProviderCallError)) {
      // Not answered: the provider may have refunded; the refund stays pending, credits stay taken.
      deps.logger.error({ err: error, paymentId, refundId: reserved.refundId }, 'payment refund: no answer');
      throw new ProviderUnavailableError(
        `The provider did not answer; refund ${reserved.refundId} stays pending and must be checked with the provider`,
      );
    }
    await deps.db.transaction((transaction) => release(deps.db, transaction, reserved, error.message));
    throw new ProviderUnavailableError(`The provider refused the refund: ${error.message}`);
  }
  await deps.db.query(
    `UPDATE content.payment_refunds SET status = 'succeeded', updated_at = now() WHERE id = :id`,
    { replacements: { id: reserved.refundId } },
  );
  deps.logger.info(
    { paymentId, refundId: reserved.refundId, amountCents: reserved.amountCents },
    'payment refunded',
  );
  return (await findPayment(deps.db, paymentId))!;
}

async function reserve(
  db: Sequelize,
  transaction: Transaction,
  admin: CurrentUser,
  paymentId: string,
  body: RefundBody,
): Promise<Reserved> {
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
  const [user] = await db.query<{ balance: string }>(
    'SELECT balance FROM content.users WHERE id = :id FOR UPDATE',
    { replacements: { id: payment.owner_id }, type: QueryTypes.SELECT, transaction },
  );
  const balance = Number(user?.balance ?? 0);
  if (credits > balance && !body.force) throw new RefundWouldOverdrawError(balance, credits);
  const debit = Math.min(credits, balance);
  const refundId = randomUUID();
  await db.query(
    `INSERT INTO content.payment_refunds (id, payment_id, amount_cents, credits, forced, reason, requested_by)
     VALUES (:refundId, :paymentId, :amountCents, :debit, :forced, :reason, :adminId)`,
    {
      replacements: {
        refundId,
        paymentId,
        amountCents,
        debit,
        forced: body.force ?? false,
        reason: body.reason ?? '',
        adminId: admin.id,
      },
      transaction,
    },
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
  return { refundId, debit, amountCents, payment };
}

/** The provider refused: the reservation is released and the credits are given back. */
async function release(
  db: Sequelize,
  transaction: Transaction,
  reserved: Reserved,
  reason: string,
): Promise<void> {
  await db.query(
    `UPDATE content.payment_refunds SET status = 'failed', failure_reason = :reason, updated_at = now() WHERE id = :id`,
    { replacements: { id: reserved.refundId, reason }, transaction },
  );
  await findPayment(db, reserved.payment.id, transaction);
  await moveRefunded(db, transaction, reserved.payment.id, -reserved.amountCents, -reserved.debit);
  if (reserved.debit > 0)
    await postEntry(db, transaction, {
      userId: reserved.payment.owner_id,
      amount: reserved.debit,
      kind: 'adjustment',
      reference: `payment-refund-reversal:${reserved.refundId}`,
      description: `Refund of payment ${reserved.payment.id} refused by the provider`,
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
  await db.query(
    `UPDATE content.payments
        SET refunded_cents = refunded_cents + :cents, refunded_credits = refunded_credits + :credits,
            status = CASE WHEN refunded_cents + :cents = price_cents THEN 'refunded' ELSE 'paid' END,
            updated_at = now()
      WHERE id = :paymentId`,
    { replacements: { paymentId, cents, credits }, transaction },
  );
}

export interface PaymentStatistics {
  by_status: Record<string, { count: number; amount_cents: number; credits: number }>;
  paid_cents: number;
  refunded_cents: number;
  credits_sold: number;
  credits_refunded: number;
  needs_refund: number;
}

/** Totals over payments created in the window (all time by default), for administrators. */
export async function paymentStatistics(
  db: Sequelize,
  window: { created_after?: string; created_before?: string },
): Promise<PaymentStatistics> {
  const rows = await db.query<{
    status: string;
    count: string;
    amount_cents: string;
    credits: string;
    refunded_cents: string;
    refunded_credits: string;
    needs_refund: string;
  }>(
    `SELECT status, count(*) AS count, coalesce(sum(price_cents), 0) AS amount_cents,
            coalesce(sum(credits), 0) AS credits, coalesce(sum(refunded_cents), 0) AS refunded_cents,
            coalesce(sum(refunded_credits), 0) AS refunded_credits, count(*) FILTER (WHERE needs_refund) AS needs_refund
       FROM content.payments
      WHERE (CAST(:after AS timestamptz) IS NULL OR created_at >= CAST(:after AS timestamptz))
        AND (CAST(:before AS timestamptz) IS NULL OR created_at < CAST(:before AS timestamptz))
      GROUP BY status`,
    {
      replacements: { after: window.created_after ?? null, before: window.created_before ?? null },
      type: QueryTypes.SELECT,
    },
  );
  const stats: PaymentStatistics = {
    by_status: {},
    paid_cents: 0,
    refunded_cents: 0,
    credits_sold: 0,
    credits_refunded: 0,
    needs_refund: 0,
  };
  for (const row of rows) {
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
