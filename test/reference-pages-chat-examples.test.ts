import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, makeOrganization, makeUser, type TestUser } from '@muse/test-support/chat';
import { expectDocumentedAnswer, servedContract } from './support/contract.ts';
import { startTestStack, type TestStack } from './support/stack.ts';

/**
 * The messaging API's examples (declared beside each endpoint, `example` in http/endpoint.ts) are
 * made against the live API, so that what the reference page shows cannot rot: each example
 * request is answered 200, its example answer is one the document allows, and the live answer has
 * the same fields. Examples speak of the channel `design`; the ids they name (a message, a queue)
 * are taken from a world made here: the caller subscribed to `design`, with a queue registered
 * and then a message sent, so that the queue has an event to give.
 */
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
/** The operations a client developer meets first; each must show an example. */
const MOST_USED = [
  'sendMessage',
  'getMessages',
  'registerQueue',
  'getEvents',
  'subscribe',
  'uploadFile',
  'addReaction',
  'updateMessage',
];

interface Operation {
  operationId: string;
  parameters?: {
    name: string;
    in: 'path' | 'query';
    example?: unknown;
    content?: Record<string, { example?: unknown }>;
  }[];
  requestBody?: { content: Record<string, { example?: Record<string, unknown> }> };
  responses: Record<string, { content?: Record<string, { example?: Record<string, unknown> }> }>;
}

interface Example {
  method: (typeof METHODS)[number];
  route: string;
  operation: Operation;
  path: Record<string, unknown>;
  params: Record<string, unknown>;
  response: Record<string, unknown> | undefined;
  takesFile: boolean;
}

let stack: TestStack;
let caller: TestUser;
/** Live values for the parameters examples name by id. */
let world: Record<string, unknown>;

beforeAll(async () => {
  stack = await startTestStack();
  await makeOrganization(stack);
  caller = await makeUser(stack);
  const subscribed = await call(stack.chatUrl, 'POST', '/users/me/subscriptions', caller, {
    subscriptions: [{ name: 'design' }],
  });
  expect(subscribed.status).toBe(200);
  const queue = await call(stack.chatUrl, 'POST', '/register', caller, { event_types: ['message'] });
  const sent = await call(stack.chatUrl, 'POST', '/messages', caller, {
    type: 'stream',
    to: 'design',
    topic: 'launch plan',
    content: 'First draft of the plan.',
  });
  expect(sent.status).toBe(200);
  world = { queue_id: queue.body.queue_id, message_id: sent.body.id };
});
afterAll(() => stack?.stop());

function examplesOf(document: { paths: Record<string, Record<string, Operation>> }): Example[] {
  return Object.entries(document.paths).flatMap(([route, item]) =>
    METHODS.flatMap((method) => {
      const operation = item[method];
      if (!operation) return [];
      const parameters = operation.parameters ?? [];
      const valueOf = (parameter: (typeof parameters)[number]) =>
        parameter.example ?? parameter.content?.['application/json']?.example;
      const path = Object.fromEntries(
        parameters
          .filter((p) => p.in === 'path' && valueOf(p) !== undefined)
          .map((p) => [p.name, valueOf(p)]),
      );
      const query = Object.fromEntries(
        parameters
          .filter((p) => p.in === 'query' && valueOf(p) !== undefined)
          .map((p) => [p.name, valueOf(p)]),
      );
      const media = operation.requestBody?.content;
      const body = (media?.['application/x-www-form-urlencoded'] ?? media?.['multipart/form-data'])?.example;
      const response = operation.responses['200']?.content?.['application/json']?.example;
      const params = { ...query, ...body };
      if (!Object.keys(path).length && !Object.keys(params).length && !response) return [];
      const takesFile = media !== undefined && !media['application/x-www-form-urlencoded'];
      return [{ method, route, operation, path, params, response, takesFile }];
    }),
  );
}

/** The example's call with the world's ids in place of the example's. */
async function makeCall(example: Example): Promise<{ status: number; body: Record<string, unknown> }> {
  const route = example.route
    .replace(/^\/api\/v1/, '')
    .replace(/\{([^}]+)\}/g, (_, name: string) => String(world[name] ?? example.path[name]));
  const params = Object.fromEntries(
    Object.entries(example.params).map(([name, value]) => [name, name in world ? world[name] : value]),
  );
  if (!example.takesFile) {
    const method = example.method.toUpperCase() as 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
    return call(stack.chatUrl, method, route, caller, params);
  }
  const form = new FormData();
  for (const [name, value] of Object.entries(params))
    form.set(name, typeof value === 'string' ? value : JSON.stringify(value));
  form.set('file', new Blob(['%PDF-1.4\n'], { type: 'application/pdf' }), 'plan.pdf');
  const url = `${stack.chatUrl}/api/v1${route}`;
  const answer = await fetch(url, {
    method: example.method.toUpperCase(),
    headers: { authorization: `Basic ${Buffer.from(`${caller.email}:${caller.apiKey}`).toString('base64')}` },
    body: form,
  });
  const body = (await answer.json()) as Record<string, unknown>;
  expectDocumentedAnswer(await servedContract(stack.chatUrl), example.method, url, {
    status: answer.status,
    contentType: answer.headers.get('content-type'),
    body,
  });
  return { status: answer.status, body };
}

describe('the examples of the messaging API reference', () => {
  it('show a request and an answer for the most used operations', async () => {
    const document = (await (await fetch(`${stack.chatUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, Operation>>;
    };
    const shown = examplesOf(document)
      .filter((example) => example.response && (Object.keys(example.params).length || example.takesFile))
      .map((example) => example.operation.operationId);
    expect(shown).toEqual(expect.arrayContaining(MOST_USED));
  });

  it('are answered by the live API as they say', async () => {
    const document = (await (await fetch(`${stack.chatUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, Operation>>;
    };
    const contract = await servedContract(stack.chatUrl);
    for (const example of examplesOf(document)) {
      const { operationId } = example.operation;
      const live = await makeCall(example);
      expect({ operationId, status: live.status, body: live.body }).toMatchObject({
        operationId,
        status: 200,
      });
      if (!example.response) continue;
      // The example answer is one the document allows …
      expectDocumentedAnswer(contract, example.method, `${stack.chatUrl}${example.route}`, {
        status: 200,
        contentType: 'application/json',
        body: example.response,
      });
      // … with the fields the live one has.
      expect({ operationId, fields: Object.keys(example.response).sort() }).toEqual({
        operationId,
        fields: Object.keys(live.body).sort(),
      });
    }
  });
});
