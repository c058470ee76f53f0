import { expectDocumentedAnswer, servedContract } from './contract.ts';
import type { TestUser } from './content.ts';

export interface HttpAnswer<T = unknown> {
  status: number;
  body: T;
}

/**
 * A JSON request against a test server as `user` (or anonymous); answers status and parsed body.
 * The answer must be one the server's own /openapi.json documents (status and body), or the call fails.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answers loosely and assert their shape
export async function call<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  user?: TestUser,
  body?: unknown,
): Promise<HttpAnswer<T>> {
  const contract = await servedContract(baseUrl);
  const headers: Record<string, string> = { ...(user?.headers ?? {}) };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  const contentType = response.headers.get('content-type');
  const parsed: unknown = text && contentType?.includes('json') ? JSON.parse(text) : text || undefined;
  expectDocumentedAnswer(contract, method, response.url, {
    status: response.status,
    contentType,
    body: parsed,
  });
  return { status: response.status, body: parsed as T };
}
