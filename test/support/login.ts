import { randomBytes } from 'node:crypto';
import { createTestUser, type TestUser } from './content.ts';
import { expectDocumentedAnswer, servedContract } from './contract.ts';
import { startWebhookReceiver, type CodeReceiver } from './fakes/code-receivers.ts';
import type { TestStack } from './stack.ts';

/**
 * fetch against the content API with JSON in and out. The answer must be one the API's own
 * /openapi.json documents (status and body), or the call fails.
 */
export async function api(
  stack: TestStack,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
) {
  const contract = await servedContract(stack.contentUrl);
  const response = await fetch(`${stack.contentUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: { ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...init.headers },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await response.text();
  const contentType = response.headers.get('content-type');
  const body: unknown = text && contentType?.includes('json') ? JSON.parse(text) : text || undefined;
  expectDocumentedAnswer(contract, init.method ?? 'GET', response.url, {
    status: response.status,
    contentType,
    body,
  });
  return {
    status: response.status,
    headers: response.headers,
    // Tests read the answers field by field; `any` keeps them short (the OpenAPI document types the real clients).
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    body: body as any,
  };
}

/** A webhook code receiver registered as an enabled provider through the administrator API. */
export async function addWebhookProvider(
  stack: TestStack,
  admin: TestUser,
  options: { name?: string; priority?: number } = {},
): Promise<CodeReceiver & { providerId: string }> {
  const secret = randomBytes(16).toString('hex');
  const receiver = await startWebhookReceiver(secret);
  const created = await api(stack, '/api/v1/verification-code-providers', {
    method: 'POST',
    headers: admin.headers,
    body: {
      name: options.name ?? `webhook-${randomBytes(4).toString('hex')}`,
      type: 'webhook',
      priority: options.priority ?? 10,
      config: { url: receiver.url },
      secrets: { signing_secret: secret },
    },
  });
  if (created.status !== 201) throw new Error(`provider not created: ${JSON.stringify(created.body)}`);
  return Object.assign(receiver, { providerId: created.body.id as string });
}

/** A distinct client address per test, sent through the trusted proxy header, so IP limits do not collide. */
export function clientAddress(): Record<string, string> {
  return { 'X-Forwarded-For': `10.${[0, 0, 0].map(() => randomBytes(1)[0]! % 250).join('.')}` };
}

export async function requestCode(
  stack: TestStack,
  phone: string,
  headers = clientAddress(),
  codeType = 'sms',
) {
  return api(stack, `/api/v1/auth/verification-code?phone_number=${phone}&code_type=${codeType}`, {
    headers,
  });
}

export async function exchangeCode(
  stack: TestStack,
  phone: string,
  code: string,
  headers = clientAddress(),
  source = 'test',
) {
  return api(stack, '/api/v1/auth/token', {
    method: 'POST',
    headers,
    body: { phone, verification_code: code, source },
  });
}

export { createTestUser };
