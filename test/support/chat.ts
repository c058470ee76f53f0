import { Agent, request } from 'node:http';
import { createDatabase, listen } from '@muse/core';
import { createChatApp, createChatUser, createOrganization } from '@muse/chat-api';
import { expectDocumentedAnswer, servedContract } from './contract.ts';
import type { TestStack } from './stack.ts';

export interface TestUser {
  id: number;
  email: string;
  apiKey: string;
  password: string;
}

let counter = 0;

/** A user created the way `muse-server chat create-user` does, with a known password. */
export async function makeUser(
  stack: TestStack,
  options: {
    role?: number;
    visibility?: number;
    subdomain?: string;
    isBot?: boolean;
    botOwnerId?: number;
    canChangeUserEmails?: boolean;
    canCreateUsers?: boolean;
    name?: string;
  } = {},
): Promise<TestUser> {
  counter += 1;
  const email = `user${counter}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const password = `pw-${counter}-secret`;
  const user = await createChatUser(stack.database.db, {
    subdomain: options.subdomain ?? '',
    email,
    fullName: options.name ?? `Test User ${counter}`,
    password,
    role: options.role ?? 400,
    ...(options.visibility ? { emailAddressVisibility: options.visibility } : {}),
    ...(options.isBot ? { isBot: true } : {}),
    ...(options.botOwnerId ? { botOwnerId: options.botOwnerId } : {}),
    ...(options.canChangeUserEmails ? { canChangeUserEmails: true } : {}),
    ...(options.canCreateUsers ? { canCreateUsers: true } : {}),
  });
  return { id: user.id, email, apiKey: user.api_key, password };
}

export async function makeOrganization(stack: TestStack, subdomain = ''): Promise<void> {
  await createOrganization(stack.database.db, { subdomain, name: `Org ${subdomain || 'root'}` });
}

export interface Reply {
  status: number;
  headers: Headers;
  body: Record<string, unknown> & { result: string; msg: string; code?: string };
}

/**
 * One API call over real HTTP: form-encoded body for POST/PATCH, query string for GET/DELETE.
 * The answer must be one the served /openapi.json documents (status and body), or the call fails.
 */
export async function call(
  baseUrl: string,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  user: TestUser | { email: string; apiKey: string } | null,
  params: Record<string, unknown> = {},
  extraHeaders: Record<string, string> = {},
): Promise<Reply> {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    form.set(key, typeof value === 'string' ? value : JSON.stringify(value));
  const inQuery = method === 'GET' || method === 'DELETE';
  const url = `${baseUrl}/api/v1${path}${inQuery && [...form].length ? `?${form}` : ''}`;
  const headers: Record<string, string> = { ...extraHeaders };
  if (user) headers.authorization = `Basic ${Buffer.from(`${user.email}:${user.apiKey}`).toString('base64')}`;
  if (!inQuery) headers['content-type'] = 'application/x-www-form-urlencoded';
  const contract = await servedContract(baseUrl);
  const reply = await send(url, method, headers, inQuery ? undefined : form.toString());
  expectDocumentedAnswer(contract, method, url, {
    status: reply.status,
    contentType: reply.headers.get('content-type'),
    body: reply.body,
  });
  return reply;
}

/**
 * A connection per call: a kept-alive one the server closed while the (busy) test process was not
 * looking would fail the next call with ECONNRESET.
 */
const agent = new Agent({ keepAlive: false });

/** node:http rather than fetch, because tests set the Host header to pick an organization. */
function send(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const responseHeaders = new Headers();
        for (const [key, value] of Object.entries(res.headers))
          if (typeof value === 'string') responseHeaders.set(key, value);
        try {
          resolve({
            status: res.statusCode ?? 0,
            headers: responseHeaders,
            body: JSON.parse(text) as Reply['body'],
          });
        } catch {
          reject(new Error(`non-JSON answer ${res.statusCode}: ${text.slice(0, 200)}`));
        }
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

export type QueuedEvent = { id: number; type: string; op?: string } & Record<string, unknown>;

/**
 * Long-polls a queue until `done` holds for the events seen so far (heartbeats left out).
 * The stack's heartbeat interval bounds each poll, so the deadline is checked regularly.
 */
export async function waitForEvents(
  baseUrl: string,
  user: TestUser,
  queueId: string,
  done: (events: QueuedEvent[]) => boolean,
  timeoutMs = 60_000,
): Promise<QueuedEvent[]> {
  const seen: QueuedEvent[] = [];
  let lastEventId = -1;
  const deadline = Date.now() + timeoutMs;
  while (!done(seen)) {
    if (Date.now() > deadline)
      throw new Error(`events not seen within ${timeoutMs} ms; got ${JSON.stringify(seen).slice(0, 2000)}`);
    const reply = await call(baseUrl, 'GET', '/events', user, {
      queue_id: queueId,
      last_event_id: lastEventId,
    });
    if (reply.status !== 200)
      throw new Error(`GET /events answered ${reply.status}: ${JSON.stringify(reply.body)}`);
    for (const event of reply.body.events as QueuedEvent[]) {
      lastEventId = Math.max(lastEventId, event.id);
      if (event.type !== 'heartbeat') seen.push(event);
    }
  }
  return seen;
}

/** A Unix time `seconds` from now, rounded up to the next whole second (the API's unit). */
export const secondsFromNow = (seconds: number) => Math.ceil(Date.now() / 1000) + seconds;

/** Polls `check` until it holds (no fixed sleeps: the machine may be busy), failing after `limitMs`. */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  what: string,
  limitMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + limitMs;
  for (let pause = 10; !(await check()); pause = Math.min(pause * 2, 200)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

/**
 * The messaging API on a pool of its own with `poolMax` connections, on the stack's database: the
 * suites' own pool has one, which runs every transaction after the other and shows no race.
 */
export async function chatOnPool(
  stack: TestStack,
  poolMax: number,
): Promise<{ url: string; close: () => Promise<void> }> {
  const db = createDatabase(stack.database.url, undefined, { poolMax });
  const server = await listen(createChatApp({ ...stack, db }), {
    host: '127.0.0.1',
    port: 0,
    logger: stack.logger,
    shutdownTimeoutMs: 1000,
  });
  return {
    url: server.url,
    close: async () => {
      await server.close();
      await db.close();
    },
  };
}
