import { QueryTypes } from 'sequelize';
import { expect } from 'vitest';
import { expectDocumentedAnswer, servedContract } from './contract.ts';
import { call, type HttpAnswer } from './http.ts';
import type { TestUser } from './content.ts';
import type { TestStack } from './stack.ts';

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
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answers loosely and assert their shape
    async order(user: TestUser, body: Record<string, unknown>, key?: string): Promise<HttpAnswer<any>> {
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
      return { status: response.status, body: parsed };
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
