import { Agent, request } from 'node:http';
import { afterAll, beforeAll, expect } from 'vitest';
import { createDatabase, listen, type DatabaseOptions, type Sequelize } from '@muse/core';
import { createChatApp, createChatUser, createOrganization } from '@muse/chat-api';
import { expectDocumentedAnswer, servedContract } from './contract.ts';
import { startTestStack, type TestStack } from './stack.ts';

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
 * The messaging API on a pool of its own (`options.poolMax` connections, one unless given, and
 * its timeouts), on the stack's database: to race many connections (the suites' own pool has one,
 * which runs every transaction after the other and shows no race), or to exhaust or slow one.
 */
export async function chatOnPool(
  stack: TestStack,
  options: DatabaseOptions,
): Promise<{ db: Sequelize; url: string; close: () => Promise<void> }> {
  const db = createDatabase(stack.database.url, undefined, { poolMax: 1, ...options });
  const server = await listen(createChatApp({ ...stack, db }), {
    host: '127.0.0.1',
    port: 0,
    logger: stack.logger,
    shutdownTimeoutMs: 1000,
  });
  return {
    db,
    url: server.url,
    close: async () => {
      await server.close();
      await db.close();
    },
  };
}

/** A suite of many clients at the same moment, each with its event queue (see `racingClients`). */
export interface RacingClients {
  /** The suite's own stack, with an organization at the root. */
  readonly stack: TestStack;
  /** The messaging API the clients call: on a pool of its own when `poolMax` is given. */
  url(): string;
  /** A new event queue of `user` for `eventTypes`; its id. */
  register(user: TestUser, eventTypes: string[]): Promise<string>;
  /** Fails, naming each, unless every reply is a 200. */
  expectAllOk(replies: Reply[]): void;
}

/**
 * Starts (beforeAll) and stops (afterAll) what the concurrency suites share: a stack of their
 * own with an organization, and with `poolMax` the API on a pool of that many connections
 * (`chatOnPool`; the stack's pool has one, which runs transactions one after another).
 */
export function racingClients(options: { poolMax?: number } = {}): RacingClients {
  let stack: TestStack | undefined;
  let chat: Awaited<ReturnType<typeof chatOnPool>> | undefined;
  beforeAll(async () => {
    stack = await startTestStack();
    await makeOrganization(stack);
    if (options.poolMax) chat = await chatOnPool(stack, { poolMax: options.poolMax });
  });
  afterAll(async () => {
    await chat?.close();
    await stack?.stop();
  });
  const url = () => chat?.url ?? stack!.chatUrl;
  return {
    get stack() {
      return stack!;
    },
    url,
    async register(user, eventTypes) {
      const reply = await call(url(), 'POST', '/register', user, { event_types: eventTypes });
      expect(reply.status).toBe(200);
      return reply.body.queue_id as string;
    },
    expectAllOk(replies) {
      const failed = replies
        .filter((r) => r.status !== 200)
        .map((r) => `${r.status} ${JSON.stringify(r.body)}`);
      expect(failed).toEqual([]);
    },
  };
}
