import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { expectDocumentedAnswer, servedContract } from './contract.ts';
import { call, type HttpAnswer } from './http.ts';
import { createTestUser, type TestUser } from './content.ts';
import { startTestStack, type TestStack } from './stack.ts';

/** What every payment provider of the tests offers: its `payment-api` settings and an end. */
export interface ProviderDouble {
  settings(): Record<string, unknown>;
  close(): Promise<void>;
}

/** The development provider (no server of its own): paying is opening the order's link. */
export async function developmentDouble() {
  return {
    settings: () => ({ provider: 'development', enabled: true }),
    close: async () => {},
    /** The payer opens the pay link (a GET of `code_url`); answers the notification's status. */
    async pay(codeUrl: string): Promise<number> {
      return (await fetch(codeUrl)).status;
    },
  };
}

export interface PaymentSuite<Provider extends ProviderDouble> {
  stack: TestStack;
  admin: TestUser;
  kit: PaymentKit;
  provider: Provider;
  /** A new user's order (201) for a new bundle of `credits` at `price_cents`. */
  openOrder(
    credits?: number,
    priceCents?: number,
  ): Promise<{ user: TestUser; order: { id: string; code_url: string; pay_url: string; status: string } }>;
}

/**
 * The setup every payment test file shares, registered as the file's hooks: a stack (with a
 * worker when asked; configured with `env`), an administrator, the provider double, and the
 * provider configured in `payment-api` before each test (unless `configure: false`). Read the
 * fields inside tests.
 */
export function paymentSuite<Provider extends ProviderDouble>(
  startProvider: () => Promise<Provider>,
  options: { worker?: boolean; configure?: boolean; env?: Record<string, string> } = {},
): PaymentSuite<Provider> {
  const suite = {} as PaymentSuite<Provider>;
  beforeAll(async () => {
    suite.stack = await startTestStack(options.env);
    if (options.worker) await suite.stack.startWorker();
    suite.admin = await createTestUser(suite.stack, { admin: true });
    suite.kit = paymentKit(suite.stack, suite.admin);
    suite.provider = await startProvider();
  });
  afterAll(async () => {
    await suite.provider?.close();
    await suite.stack?.stop();
  });
  if (options.configure !== false) beforeEach(() => suite.kit.configure(suite.provider.settings()));
  suite.openOrder = async (credits = 100, priceCents = 990) => {
    const user = await createTestUser(suite.stack);
    const bundle = await suite.kit.createBundle({ credits, price_cents: priceCents });
    const answer = await suite.kit.order(user, { bundle_id: bundle.id });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    return { user, order: answer.body };
  };
  return suite;
}

/** Our order number at the providers: the payment id without dashes. */
export const outTradeNo = (paymentId: string): string => paymentId.replaceAll('-', '');

export type PaymentKit = ReturnType<typeof paymentKit>;

/** Helpers of the payment tests: bundles, orders and what the ledger holds about them. */
export function paymentKit(stack: TestStack, admin: TestUser) {
  const api = (method: string, path: string, user?: TestUser, body?: unknown) =>
    call(stack.contentUrl, method, path, user, body);
  return {
    api,
    async configure(settings: Record<string, unknown>) {
      const answer = await api('PATCH', '/api/v1/payment-api', admin, settings);
      expect(answer.status).toBe(200);
    },
    async createBundle(body: Record<string, unknown> = {}): Promise<{ id: string }> {
      const answer = await api('POST', '/api/v1/bundles', admin, {
        name: 'Starter',
        credits: 100,
        price_cents: 990,
        ...body,
      });
      expect(answer.status).toBe(201);
      return answer.body as { id: string };
    },
    /** `POST /api/v1/payments`, with an Idempotency-Key when given; the answer must be documented. */
    async order(
      user: TestUser,
      body: Record<string, unknown>,
      key?: string,
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answers loosely and assert their shape
    ): Promise<HttpAnswer<any> & { headers: Headers }> {
      const response = await fetch(`${stack.contentUrl}/api/v1/payments`, {
        method: 'POST',
        headers: {
          ...user.headers,
          'Content-Type': 'application/json',
          ...(key ? { 'Idempotency-Key': key } : {}),
        },
        body: JSON.stringify(body),
      });
      const parsed = (await response.json()) as unknown;
      expectDocumentedAnswer(await servedContract(stack.contentUrl), 'POST', response.url, {
        status: response.status,
        contentType: response.headers.get('content-type'),
        body: parsed,
      });
      return { status: response.status, body: parsed, headers: response.headers };
    },
    /** The ledger's entries about a payment: its credit and its refunds' debits. */
    async ledgerOf(paymentId: string): Promise<{ kind: string; amount: number; reference: string }[]> {
      const rows = await stack.database.db.query<{ kind: string; amount: string; reference: string }>(
        `SELECT kind, amount, reference FROM content.transaction_logs
          WHERE reference = :credit OR reference LIKE 'payment-refund%' AND description LIKE :refunds
          ORDER BY created_at, amount DESC`,
        {
          replacements: { credit: `payment:${paymentId}`, refunds: `%${paymentId}%` },
          type: QueryTypes.SELECT,
        },
      );
      return rows.map((row) => ({ ...row, amount: Number(row.amount) }));
    },
  };
}
