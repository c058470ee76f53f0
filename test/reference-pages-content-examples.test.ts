import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestUser, type TestUser } from './support/content.ts';
import { startWebhookReceiver, type CodeReceiver } from './support/fakes/code-receivers.ts';
import { submit } from './support/generation.ts';
import {
  expectDocumentedAnswer,
  operationExamples,
  servedContract,
  type OperationExample,
} from './support/contract.ts';
import { startTestStack, type TestStack } from './support/stack.ts';

/**
 * The content API's examples (written beside each declaration: `example` in the area's YAML, or
 * a resource declaration's `example`) are made against the live API, so that what the reference
 * page shows cannot rot: every operation shows one, each example request is answered with the
 * documented success status, its example answer is one the document allows, and the live answer
 * has the same fields.
 *
 * The examples name ids the way a reader's own calls would: an id shown in one example's answer
 * (the character a create made) is the id a later example sends. The examples are made in the
 * order a reader makes them (creates first, deletes last), and each live answer's ids stand in
 * for the example's from then on.
 */

/**
 * Operations whose caller is a payment provider, which signs what it sends with its own keys: their
 * examples show what the provider sends, and made here they must be refused as the document says
 * (the signature is not the provider's), so that the page's example reaches the check it describes.
 */
const SIGNED_BY_PROVIDER: Record<string, number> = {
  receiveWechatPayNotification: 400,
  receiveAlipayNotification: 400,
};

let stack: TestStack;
let admin: TestUser;
let codes: CodeReceiver;
/** The live value standing in for each value an example names (its ids, its link's signature …). */
const live = new Map<unknown, unknown>();
/** What happens after an operation's example, for the examples that follow it. */
const after: Record<string, () => void> = {};

/**
 * What the examples name but no example makes: the account the users' examples change (the
 * administrator making the calls cannot ban or delete themself), the pending generation the
 * cancel example ends (no worker runs here, so it stays pending), the socket example's token, the code-delivery webhook (a local receiver)
 * and the code it is sent, and a payment provider (the development one) for the order example.
 */
beforeAll(async () => {
  stack = await startTestStack();
  admin = await createTestUser(stack, { admin: true, balance: 100_000 });
  const byId = Object.fromEntries((await examples()).map((example) => [example.operationId, example]));
  live.set(byId.getUser!.path.id, (await createTestUser(stack)).id);
  live.set(byId.openConversationSocket!.query.token, admin.token);

  const pending = await submit(stack, admin, 'texts', {
    generator_id: '00000000-0000-4000-8000-000000000003',
    prompt: 'to be cancelled',
  });
  const file = await fetch(`${stack.contentUrl}/api/v1/files/${pending.body.file_ids[0]}`, {
    headers: admin.headers,
  });
  live.set(
    byId.cancelGeneration!.path.generation_id,
    ((await file.json()) as { generation_id: string }).generation_id,
  );

  const provider = byId.createVerificationCodeProvider!.body!.example as {
    config: { url: string };
    secrets: { signing_secret: string };
  };
  codes = await startWebhookReceiver(provider.secrets.signing_secret);
  live.set(provider.config.url, codes.url);
  const login = byId.createToken!.body!.example as { phone: string; verification_code: string };
  after.requestVerificationCode = () => live.set(login.verification_code, codes.codeFor(login.phone));

  const configured = await fetch(`${stack.contentUrl}/api/v1/payment-api`, {
    method: 'PATCH',
    headers: { ...admin.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ provider: 'development', enabled: true }),
  });
  expect(configured.status).toBe(200);
});
afterAll(async () => {
  await codes?.close();
  await stack?.stop();
});

async function examples(): Promise<OperationExample[]> {
  const document = (await (await fetch(`${stack.contentUrl}/openapi.json`)).json()) as Parameters<
    typeof operationExamples
  >[0];
  return operationExamples(document);
}

/** Creates first, then reads, then changes and actions, deletes last. */
function rank(example: OperationExample): number {
  if (example.method === 'delete') return 3;
  if (madesAnId(example)) return 0;
  return example.method === 'get' ? 1 : 2;
}

/** A create: its answer shows the id of what it made. */
const madesAnId = (example: OperationExample) =>
  example.status === 201 && typeof (example.answer?.example as { id?: unknown })?.id === 'string';

/** The ids a value names, wherever they are in it. */
function idsIn(value: unknown): string[] {
  if (typeof value === 'string') return UUID.test(value) ? [value] : [];
  if (value && typeof value === 'object') return Object.values(value).flatMap(idsIn);
  return [];
}

/**
 * The examples in the order a reader makes them: by rank, and an example that names what another
 * example makes (a favorite's character) after that one; deletes last, the latest made first.
 */
function inReadersOrder(examples: OperationExample[]): OperationExample[] {
  const made = new Set(
    examples.filter(madesAnId).map((example) => (example.answer!.example as { id: string }).id),
  );
  const needs = (example: OperationExample) =>
    idsIn([example.path, example.query, example.header, example.body?.example]).filter(
      (id) => made.has(id) && id !== (example.answer?.example as { id?: string })?.id,
    );
  // Deletes go in the reverse order of the creates, so that none meets what an earlier one removed.
  const place = (example: OperationExample) =>
    rank(example) === 3 ? -examples.indexOf(example) : examples.indexOf(example);
  const pending = [...examples].sort((a, b) => rank(a) - rank(b) || place(a) - place(b));
  const ordered: OperationExample[] = [];
  const done = new Set<string>();
  while (pending.length) {
    const next = pending.findIndex((example) => needs(example).every((id) => done.has(id)));
    const [example] = pending.splice(Math.max(next, 0), 1);
    ordered.push(example!);
    if (madesAnId(example!)) done.add((example!.answer!.example as { id: string }).id);
  }
  return ordered;
}

/** The value with every example value that has a live stand-in replaced by it. */
function toLive(value: unknown): unknown {
  if (live.has(value)) return live.get(value);
  if (Array.isArray(value)) return value.map(toLive);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, toLive(item)]));
  return value;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Learns the live stand-ins of the ids of an example answer from the live answer in their place,
 * and of a link's parameters (a download link's signature) from the live link.
 */
function learn(example: unknown, answer: unknown): void {
  if (typeof example === 'string' && typeof answer === 'string') {
    if (UUID.test(example) && example !== answer && !live.has(example)) live.set(example, answer);
    if (/^https?:\/\//.test(example)) {
      const shown = new URL(example).searchParams;
      const made = new URL(answer, stack.contentUrl).searchParams;
      for (const [name, value] of shown) if (made.has(name)) live.set(value, made.get(name));
    }
  } else if (Array.isArray(example) && Array.isArray(answer)) {
    example.forEach((item, index) => learn(item, answer[index]));
  } else if (example && answer && typeof example === 'object' && typeof answer === 'object') {
    for (const [key, item] of Object.entries(example)) learn(item, (answer as Record<string, unknown>)[key]);
  }
}

/** The keys a reader sees: an object's, or a list's first item's. */
function fields(value: unknown): string[] {
  const shown = Array.isArray(value) ? value[0] : value;
  return shown && typeof shown === 'object' ? Object.keys(shown).sort() : [];
}

/** The example's URL with the live values in place of the example's. */
function liveUrl(example: OperationExample): string {
  const path = example.route.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encodeURIComponent(String(toLive(example.path[name]))),
  );
  const query = new URLSearchParams(
    Object.entries(example.query).map(([name, value]): [string, string] => [name, String(toLive(value))]),
  );
  return `${stack.contentUrl}${path}${query.size ? `?${query}` : ''}`;
}

/** The example's request, made with its live values; its answer, the body parsed when JSON. */
async function makeCall(example: OperationExample) {
  if (example.status === 101) return openSocket(example);
  const url = liveUrl(example);
  const headers: Record<string, string> = {
    ...admin.headers,
    ...Object.fromEntries(
      Object.entries(example.header).map(([name, value]) => [name, String(toLive(value))]),
    ),
  };
  let body: FormData | URLSearchParams | string | undefined;
  if (example.body?.media === 'application/json') {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(toLive(example.body.example));
  } else if (example.body?.media === 'multipart/form-data') {
    const form = new FormData();
    for (const [name, value] of Object.entries(toLive(example.body.example) as Record<string, unknown>))
      form.set(name, typeof value === 'string' ? value : JSON.stringify(value));
    form.set('file', new Blob(['\x89PNG\r\n\x1a\n'], { type: 'image/png' }), 'fox.png');
    body = form;
  } else if (example.body) {
    headers['content-type'] = example.body.media;
    body = new URLSearchParams(toLive(example.body.example) as Record<string, string>);
  }
  const answer = await fetch(url, {
    method: example.method.toUpperCase(),
    headers,
    body,
    redirect: 'manual',
  });
  const contentType = answer.headers.get('content-type');
  const text = await answer.text();
  return {
    url,
    status: answer.status,
    contentType,
    body: contentType?.includes('json') ? JSON.parse(text) : text,
  };
}

/** A WebSocket example: the handshake is answered 101 and the socket let in hears `ready`. */
async function openSocket(example: OperationExample) {
  const url = liveUrl(example);
  const socket = new WebSocket(url.replace(/^http/, 'ws'));
  const status = await new Promise<number>((resolve, reject) => {
    socket.once('upgrade', (response) => resolve(response.statusCode ?? 0));
    socket.once('unexpected-response', (_, response) => resolve(response.statusCode ?? 0));
    socket.once('error', reject);
  });
  if (status === 101) {
    const first = await new Promise<string>((resolve) =>
      socket.once('message', (data) => resolve(String(data))),
    );
    expect(JSON.parse(first)).toMatchObject({ type: 'ready' });
  }
  socket.terminate();
  return { url, status, contentType: null, body: undefined };
}

describe('the examples of the content API reference', () => {
  it('show an example request and answer on every operation', async () => {
    const without = (await examples()).filter((example) => example.missing.length);
    // Each operation without one, with what it lacks.
    expect(without.map((example) => `${example.operationId}: ${example.missing.join(', ')}`)).toEqual([]);
  });

  it('are answered by the live API as they say', async () => {
    const contract = await servedContract(stack.contentUrl);
    const shown = inReadersOrder((await examples()).filter((example) => !example.missing.length));
    // Every example is made, and what each got wrong is listed together.
    const wrong: string[] = [];
    for (const example of shown) {
      const { operationId } = example;
      const answer = await makeCall(example);
      after[operationId]?.();
      try {
        const refused = SIGNED_BY_PROVIDER[operationId];
        expect(answer.status, String(JSON.stringify(answer.body)).slice(0, 500)).toBe(
          refused ?? example.status,
        );
        expectDocumentedAnswer(contract, example.method, answer.url, answer);
        if (!example.answer || refused) continue;
        // The example answer is one the document allows …
        expectDocumentedAnswer(contract, example.method, answer.url, {
          status: example.status,
          contentType: example.answer.media,
          body: example.answer.example,
        });
        // … with the fields the live one has; its ids stand for the live ones from now on.
        expect(fields(example.answer.example)).toEqual(fields(answer.body));
        learn(example.answer.example, answer.body);
      } catch (error) {
        wrong.push(`${operationId}: ${(error as Error).message}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
