import { createHash, randomUUID } from 'node:crypto';
import type { Transaction } from 'sequelize';
import {
  AppError,
  ConflictError,
  NotFoundError,
  NotImplementedError,
  OutboundError,
  ServiceUnavailableError,
  exec,
  isUniqueViolation,
  one,
  transact,
} from '@muse/core';
import { readPaymentApi } from '../admin/payment-api.ts';
import type { CurrentUser } from '../auth/authenticate.ts';
import { DEFAULT_ORDER_TTL_SECONDS, orderingProvider, providerAdapter, type PaymentsDeps } from './config.ts';
import { failPending, findPayment, outTradeNoOf, type PaymentRow } from './transitions.ts';
import {
  ProviderCallError,
  isProviderUnavailable,
  type PaymentProviderAdapter,
  type ProviderName,
} from './providers/types.ts';

export interface OrderBody {
  bundle_id: string;
  provider?: ProviderName;
}

export interface OrderDeps extends PaymentsDeps {
  /** Where the provider sends notifications when `notify_url` is not configured ('' when unknown). */
  notifyBase: string;
  /** Starts the payment's reconciliation (expiry, lost notifications) once it is open. */
  reconcile?(payment: PaymentRow): Promise<void>;
}

/**
 * 502: the provider refused the order (then failed, nothing charged) or a refund, or could not be
 * called at all; a provider that is down answers 503 instead (failOrder).
 */
export class PaymentProviderError extends AppError {
  constructor(message: string) {
    super(502, 'payment_provider_error', message);
  }
}

/**
 * Opens an order for a public, active bundle: the payment (price and credits copied from the
 * bundle now) is written pending, then the provider is asked for the order and its pay link or QR
 * content is stored. With an Idempotency-Key, a repeat (even a concurrent one) answers the first
 * payment; a repeat of one whose provider call had not finished asks the provider again (both
 * providers treat the same order number as the same order).
 */
export async function openOrder(
  deps: OrderDeps,
  user: CurrentUser,
  body: OrderBody,
  idempotencyKey: string | undefined,
): Promise<{ payment: PaymentRow; created: boolean }> {
  const requestHash = createHash('sha256')
    .update(JSON.stringify([body.bundle_id, body.provider ?? null]))
    .digest('hex');
  if (idempotencyKey) {
    const earlier = await findByKey(deps, user.id, idempotencyKey);
    if (earlier) return { payment: await answerRepeat(deps, earlier, requestHash), created: false };
  }
  const { adapter, view } = await orderingProvider(deps);
  if (body.provider && body.provider !== adapter.name)
    throw new ConflictError(`Orders are paid with ${adapter.name} here, not ${body.provider}`);
  const notifyUrl = view.notify_url || notifyUrlOf(deps.notifyBase, adapter.name);
  const id = randomUUID();
  try {
    await insertPending(deps, user, body.bundle_id, {
      id,
      provider: adapter.name,
      ttlSeconds: view.order_ttl_seconds ?? DEFAULT_ORDER_TTL_SECONDS,
      idempotencyKey,
      requestHash,
    });
  } catch (error) {
    // A concurrent request with the same key committed first: answer its payment instead.
    if (idempotencyKey && isUniqueViolation(error)) {
      const earlier = await findByKey(deps, user.id, idempotencyKey);
      if (earlier) return { payment: await answerRepeat(deps, earlier, requestHash), created: false };
    }
    throw error;
  }
  const payment = await askProvider(deps, adapter, (await findPayment(deps.db, id))!, notifyUrl);
  await deps.reconcile?.(payment);
  return { payment, created: true };
}

async function findByKey(deps: PaymentsDeps, ownerId: string, key: string): Promise<PaymentRow | undefined> {
  const row = await one<PaymentRow>(
    deps.db,
    'SELECT * FROM content.payments WHERE owner_id = :ownerId AND idempotency_key = :key',
    { ownerId, key },
  );
  return row;
}

async function answerRepeat(deps: OrderDeps, earlier: PaymentRow, requestHash: string): Promise<PaymentRow> {
  if (earlier.request_hash !== requestHash)
    throw new ConflictError('This Idempotency-Key was already used for a different request');
  if (earlier.status !== 'pending' || earlier.code_url || earlier.pay_url) return earlier;
  const view = await readPaymentApi(deps.db);
  const adapter = await providerAdapter(deps, earlier.provider as ProviderName, view);
  const notifyUrl = view.notify_url || notifyUrlOf(deps.notifyBase, adapter.name);
  const payment = await askProvider(deps, adapter, earlier, notifyUrl);
  await deps.reconcile?.(payment);
  return payment;
}

interface BundleRow {
  visibility: string;
  is_active: boolean;
  credits: number;
  price_cents: number;
  currency: string;
  name: string;
}

/**
 * Each open order holds a provider order and a reconciliation workflow until it expires, so a
 * user may hold MUSE_PAYMENT_MAX_OPEN_ORDERS (pending, unexpired) at once; one more is 409. The
 * account's row is locked first, so parallel orders of one user are counted one after another.
 */
async function refusePastOpenOrders(deps: PaymentsDeps, ownerId: string, transaction: Transaction) {
  await exec(
    deps.db,
    'SELECT 1 FROM content.users WHERE id = :ownerId FOR NO KEY UPDATE',
    { ownerId },
    transaction,
  );
  const open = await one<{ count: string; next_expiry: Date | null }>(
    deps.db,
    `SELECT count(*) AS count, min(expires_at) AS next_expiry FROM content.payments
      WHERE owner_id = :ownerId AND status = 'pending' AND expires_at > now()`,
    { ownerId },
    transaction,
  );
  const max = deps.config.MUSE_PAYMENT_MAX_OPEN_ORDERS;
  if (Number(open!.count) >= max)
    throw new ConflictError(
      `You have ${max} open orders, the most one account may hold: pay one or wait until one expires`,
      { open_orders: Number(open!.count), next_expiry: open!.next_expiry },
    );
}

/** The pending payment, with the bundle share-locked so its price cannot change under it. */
async function insertPending(
  deps: PaymentsDeps,
  user: CurrentUser,
  bundleId: string,
  order: {
    id: string;
    provider: ProviderName;
    ttlSeconds: number;
    idempotencyKey: string | undefined;
    requestHash: string;
  },
): Promise<void> {
  await transact(deps.db, async (transaction) => {
    const bundle = await one<BundleRow>(
      deps.db,
      'SELECT * FROM content.bundles WHERE id = :bundleId FOR SHARE',
      { bundleId },
      transaction,
    );
    if (!bundle || (bundle.visibility !== 'public' && !user.isAdmin))
      throw new NotFoundError('No such bundle');
    if (!bundle.is_active || bundle.visibility !== 'public')
      throw new ConflictError('This bundle is not on sale');
    if (bundle.price_cents < 1) throw new ConflictError('This bundle has no price to pay');
    if (order.provider !== 'development' && bundle.currency !== 'CNY')
      throw new ConflictError(
        `${order.provider} takes CNY only; this bundle is priced in ${bundle.currency}`,
      );
    await refusePastOpenOrders(deps, user.id, transaction);
    await exec(
      deps.db,
      `INSERT INTO content.payments
         (id, owner_id, visibility, bundle_id, credits, price_cents, currency, status, provider,
          idempotency_key, request_hash, expires_at)
       VALUES (:id, :ownerId, 'private', :bundleId, :credits, :price, :currency, 'pending', :provider,
          :key, :hash, now() + make_interval(secs => :ttl))`,
      {
        id: order.id,
        ownerId: user.id,
        bundleId,
        credits: bundle.credits,
        price: bundle.price_cents,
        currency: bundle.currency,
        provider: order.provider,
        key: order.idempotencyKey ?? null,
        hash: order.requestHash,
        ttl: order.ttlSeconds,
      },
      transaction,
    );
  });
}

/** Asks the provider for the order and stores how to pay it; without an answer, see failOrder. */
async function askProvider(
  deps: OrderDeps,
  adapter: PaymentProviderAdapter,
  payment: PaymentRow,
  notifyUrl: string,
): Promise<PaymentRow> {
  let instructions;
  try {
    instructions = await adapter.createOrder({
      outTradeNo: outTradeNoOf(payment.id),
      amountCents: payment.price_cents,
      description: `Muse credits: ${payment.credits}`,
      expiresAt: new Date(payment.expires_at!),
      notifyUrl,
    });
  } catch (error) {
    throw await failOrder(deps, payment, error);
  }
  const row = await one<PaymentRow>(
    deps.db,
    `UPDATE content.payments SET code_url = :codeUrl, pay_url = :payUrl, updated_at = now()
      WHERE id = :id AND status = 'pending' RETURNING *`,
    {
      id: payment.id,
      codeUrl: instructions.code_url ?? null,
      payUrl: instructions.pay_url ?? null,
    },
  );
  // Failed meanwhile by a concurrent repeat whose call got no answer: answered as it is, unpayable.
  return row ?? (await findPayment(deps.db, payment.id))!;
}

/**
 * The provider gave no pay instructions, so nobody was shown how to pay this order: it is failed
 * at once (an order the provider may have opened expires there unpaid) and nothing was charged.
 * A refusal answers 502. An unavailable provider (a server error, no answer in time, no
 * connection: an outage) answers 503 with Retry-After, and the Idempotency-Key is released, so the
 * same request may be sent again once the provider is back. Answers the error to throw.
 */
async function failOrder(deps: OrderDeps, payment: PaymentRow, error: unknown): Promise<Error> {
  if (error instanceof ProviderCallError) {
    deps.logger.warn({ err: error, paymentId: payment.id }, 'payment: the provider refused the order');
    await failPending(deps.db, payment.id, error.message);
    return new PaymentProviderError(`The payment provider refused the order: ${error.message}`);
  }
  const unavailable = isProviderUnavailable(error);
  deps.logger.warn(
    { err: error, paymentId: payment.id },
    'payment: no answer from the provider; order failed',
  );
  await failPending(
    deps.db,
    payment.id,
    unavailable ? 'the provider was unavailable' : 'the provider could not be called',
    { releaseIdempotencyKey: true },
  );
  // Not an outage but a call that could not be made (an address the policy refuses, an answer too large).
  if (error instanceof OutboundError && !unavailable)
    return new PaymentProviderError(`The payment provider could not be called: ${error.message}`);
  if (!unavailable) return error as Error;
  // Retry-After: as long as the reconciliation's longest pause, how often Muse itself asks the provider.
  return new ServiceUnavailableError(
    'The payment provider is unavailable; nothing was charged. Try again later (the same Idempotency-Key may be sent again)',
    Math.ceil(deps.config.MUSE_PAYMENT_RECONCILE_MAX_WAIT_MS / 1000),
  );
}

export function notifyUrlOf(base: string, provider: ProviderName): string {
  if (!base)
    throw new NotImplementedError(
      'Payments need a notify_url in payment-api or MUSE_PUBLIC_URL: the provider must reach this server',
    );
  return `${base}/api/v1/payment-notifications/${provider}`;
}
