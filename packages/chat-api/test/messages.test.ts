import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatEndpoints } from '@muse/chat-api';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { call, makeOrganization, makeUser, type TestUser } from '@muse/test-support/chat';
import { expectZulipSchema } from './zulip-schema.ts';

describe('messages (send, read, receive) and the bootstrap commands', () => {
  let stack: TestStack;
  let alice: TestUser;
  let bob: TestUser;
  const url = () => stack.chatUrl;
  beforeAll(async () => {
    stack = await startTestStack();
    await makeOrganization(stack);
    alice = await makeUser(stack);
    bob = await makeUser(stack);
    await call(url(), 'POST', '/users/me/subscriptions', alice, {
      subscriptions: [{ name: 'general' }],
      principals: [alice.id, bob.id],
    });
  });
  afterAll(() => stack.stop());

  it('POST /messages delivers a message event to subscribers; GET /messages narrows by channel and topic', async () => {
    const queue = await call(url(), 'POST', '/register', bob, {
      event_types: ['message'],
      apply_markdown: true,
    });
    const sent = await call(url(), 'POST', '/messages', alice, {
      type: 'stream',
      to: 'general',
      topic: 'hello',
      content: 'Hi <b>there</b>',
    });
    expect(sent.status).toBe(200);
    expectZulipSchema('/messages', 'post', sent.body);
    const events = await call(url(), 'GET', '/events', bob, {
      queue_id: queue.body.queue_id,
      last_event_id: -1,
    });
    expectZulipSchema('/events', 'get', events.body);
    expect(events.body.events).toEqual([
      expect.objectContaining({
        type: 'message',
        flags: [],
        message: expect.objectContaining({
          id: sent.body.id,
          subject: 'hello',
          content: '<p>Hi &lt;b&gt;there&lt;/b&gt;</p>',
        }),
      }),
    ]);
    await call(url(), 'POST', '/messages', alice, {
      type: 'channel',
      to: 'general',
      topic: 'other',
      content: 'second',
    });
    const read = await call(url(), 'GET', '/messages', bob, {
      anchor: 'newest',
      num_before: 10,
      narrow: [
        { operator: 'channel', operand: 'general' },
        { operator: 'topic', operand: 'hello' },
      ],
    });
    expect(read.status).toBe(200);
    expectZulipSchema('/messages', 'get', read.body);
    expect((read.body.messages as { id: number }[]).map((m) => m.id)).toEqual([sent.body.id]);
  });

  it("feature level 370: '(no topic)' and the organization's empty-topic display name are the empty topic", async () => {
    const displayName = (await call(url(), 'POST', '/register', alice, { fetch_event_types: ['realm'] })).body
      .realm_empty_topic_display_name as string;
    expect(displayName).toBe('general chat');
    for (const topic of ['(no topic)', displayName, '']) {
      const sent = await call(url(), 'POST', '/messages', alice, {
        type: 'stream',
        to: 'general',
        topic,
        content: topic || 'empty',
      });
      expect(sent.status).toBe(200);
      const read = await call(url(), 'GET', '/messages', bob, {
        anchor: sent.body.id,
        num_before: 0,
        num_after: 0,
      });
      expect((read.body.messages as { subject: string }[])[0]!.subject).toBe('');
    }
  });

  it('direct messages reach the recipient', async () => {
    const sent = await call(url(), 'POST', '/messages', alice, {
      type: 'direct',
      to: [bob.id],
      content: 'psst',
    });
    expect(sent.status).toBe(200);
    const read = await call(url(), 'GET', '/messages', bob, { anchor: sent.body.id, narrow: [['is', 'dm']] });
    expect(read.body).toMatchObject({ found_anchor: true });
    expect((read.body.messages as { content: string }[])[0]?.content).toBe('<p>psst</p>');
    expectZulipSchema('/messages', 'get', read.body);
  });

  it('a narrow operand that is neither a string nor an id is 400', async () => {
    for (const narrow of [
      [['channel', [1, 2]]],
      [['channel', { id: 1 }]],
      [{ operator: 'sender', operand: [alice.id] }],
    ]) {
      const { status, body } = await call(url(), 'GET', '/messages', bob, { narrow });
      expect([status, body.code]).toEqual([400, 'BAD_REQUEST']);
      expect(body.msg).toBe('elem["operand"] is not a string or an integer');
    }
  });

  it('an unknown API path is 404 in the error envelope', async () => {
    const { status, body } = await call(url(), 'GET', '/nothing-here', alice);
    expect(status).toBe(404);
    expect(body).toMatchObject({ result: 'error', code: 'BAD_REQUEST' });
  });

  it('an unknown channel id is STREAM_DOES_NOT_EXIST with stream_id', async () => {
    const { status, body } = await call(url(), 'POST', '/messages', alice, {
      type: 'stream',
      to: 987654,
      topic: 't',
      content: 'x',
    });
    expect(status).toBe(400);
    expect(body).toMatchObject({ code: 'STREAM_DOES_NOT_EXIST', stream_id: 987654 });
  });

  it('muse-server chat create-organization and create-user bootstrap an owner who can log in', async () => {
    const main = fileURLToPath(new URL('../../server/src/main.ts', import.meta.url));
    const env = { ...process.env, DATABASE_URL: stack.database.url, LOG_LEVEL: 'silent' };
    const run = (args: string[]) => promisify(execFile)(process.execPath, [main, 'chat', ...args], { env });
    const org = await run(['create-organization', '--name', 'Acme', '--subdomain', 'acme']);
    expect(JSON.parse(org.stdout)).toMatchObject({ subdomain: 'acme', name: 'Acme' });
    const created = await run([
      'create-user',
      '--organization',
      'acme',
      '--email',
      'boss@acme.test',
      '--full-name',
      'Boss',
      '--password',
      's3cret!',
      '--role',
      'owner',
    ]);
    const owner = JSON.parse(created.stdout) as { user_id: number; api_key: string; role: number };
    expect(owner.role).toBe(100);
    const key = await call(
      url(),
      'POST',
      '/fetch_api_key',
      null,
      { username: 'boss@acme.test', password: 's3cret!' },
      { host: 'acme.localhost' },
    );
    expect(key.body).toMatchObject({ api_key: owner.api_key, user_id: owner.user_id });
    await expect(
      run(['create-user', '--organization', 'nowhere', '--email', 'x@y.z', '--full-name', 'X']),
    ).rejects.toThrow(/No organization/);
  }, 300_000); // three processes started one after another
});

describe('the messaging API contract', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(() => stack.stop());

  it('every declared endpoint is routed and documented in /openapi.json with its operation', async () => {
    const document = (await (await fetch(`${stack.chatUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    for (const declared of chatEndpoints) {
      const methods = typeof declared.method === 'string' ? [declared.method] : declared.method;
      for (const method of methods) {
        const operation = document.paths[`/api/v1${declared.path}`]?.[method];
        expect(operation?.operationId, `${method} ${declared.path}`).toMatch(
          new RegExp(`^${declared.operationId}`),
        );
        // Anonymous calls: a routed endpoint answers 401 (or, when public, its own answer), never the catch-all 404.
        const path = declared.path.replace(/\{[^}]+\}/g, '1');
        const { status, body } = await call(stack.chatUrl, method.toUpperCase() as 'GET', path, null);
        expect(status, `${method} ${declared.path}`).not.toBe(404);
        expect(body.msg).not.toMatch(/^Unknown endpoint/);
      }
    }
    const declaredCount = chatEndpoints.flatMap((e) =>
      typeof e.method === 'string' ? [e.method] : e.method,
    ).length;
    const documentedCount = Object.entries(document.paths)
      .filter(([path]) => path.startsWith('/api/v1/'))
      .flatMap(([, item]) => Object.keys(item)).length;
    expect(documentedCount).toBe(declaredCount);
  });
});
