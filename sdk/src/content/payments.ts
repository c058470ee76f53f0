import type { components, paths } from '../generated/content.ts';
import { PaymentNotPaidError, PaymentTimeoutError } from '../errors.ts';
import { sleep } from '../transport/sleep.ts';
import type { CallOptions } from '../transport/transport.ts';
import type { TypedClient } from '../typed-client.ts';

export type Payment = components['schemas']['Payment'];
export type PaymentProvider = NonNullable<components['schemas']['PaymentOrderRequest']['provider']>;

export interface PaymentCreateOptions extends CallOptions {
  /** The provider to pay with; must be the configured one (the server's default). */
  provider?: PaymentProvider;
  /** Sent as Idempotency-Key (generated unless given): a retried create answers the same order. */
  idempotencyKey?: string;
}

export interface PaymentWaitOptions {
  /** Milliseconds to wait in all (default 15 minutes, an order's default lifetime). */
  timeout?: number;
  signal?: AbortSignal;
  /** Called after every read of the payment, with the milliseconds waited so far. */
  onProgress?(payment: Payment, elapsedMs: number): void;
  /** Milliseconds between two reads (default 1000). */
  pollInterval?: number;
}

export interface PaymentHelpers {
  /**
   * Opens an order for a bundle (`POST /api/v1/payments`) and answers the pending payment: show
   * `code_url` as a QR code, or open `pay_url`.
   */
  create(bundleId: string, options?: PaymentCreateOptions): Promise<Payment>;
  get(id: string, options?: CallOptions): Promise<Payment>;
  /**
   * Follows the payment until the provider settles it: resolves once it is paid (or already
   * refunded), throws PaymentNotPaidError once it is closed or failed, PaymentTimeoutError when
   * `timeout` passes first (the order may still be paid later).
   */
  waitFor(id: string, options?: PaymentWaitOptions): Promise<Payment>;
}

const DEFAULT_TIMEOUT_MS = 15 * 60_000;

export function paymentHelpers(api: TypedClient<paths>): PaymentHelpers {
  const get = async (id: string, options: CallOptions = {}) =>
    (await api.GET('/api/v1/payments/{id}', { params: { path: { id } }, ...options })).data;
  return {
    async create(bundleId, { provider, idempotencyKey = crypto.randomUUID(), ...call } = {}) {
      const { data } = await api.POST('/api/v1/payments', {
        params: { header: { 'Idempotency-Key': idempotencyKey } },
        body: { bundle_id: bundleId, ...(provider ? { provider } : {}) },
        ...call,
      });
      return data;
    },
    get,
    async waitFor(id, { timeout = DEFAULT_TIMEOUT_MS, signal, onProgress, pollInterval = 1000 } = {}) {
      const started = Date.now();
      for (;;) {
        const payment = await get(id, signal ? { signal } : {});
        const elapsed = Date.now() - started;
        onProgress?.(payment, elapsed);
        if (payment.status === 'paid' || payment.status === 'refunded') return payment;
        if (payment.status === 'closed' || payment.status === 'failed')
          throw new PaymentNotPaidError(payment);
        if (elapsed >= timeout) throw new PaymentTimeoutError(payment, timeout);
        await sleep(Math.min(pollInterval, timeout - elapsed), signal);
      }
    },
  };
}
