import type { TestUser } from './content.ts';

export interface HttpAnswer<T = unknown> {
  status: number;
  body: T;
}

/** A JSON request against a test server as `user` (or anonymous); answers status and parsed body. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read answers loosely and assert their shape
export async function call<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  user?: TestUser,
  body?: unknown,
): Promise<HttpAnswer<T>> {
  const headers: Record<string, string> = { ...(user?.headers ?? {}) };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
}
