import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '@muse/core';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import { call, chatOnPool, makeOrganization, makeUser } from '@muse/test-support/chat';

/** Regression tests of the messaging API's security findings (issue 14). */
describe('messaging API hardening', () => {
  let stack: TestStack;
  let addressCounter = 0;
  const fromAddress = () => ({
    'x-forwarded-for': `10.9.${Math.floor(addressCounter / 250)}.${addressCounter++ % 250}`,
  });
  beforeAll(async () => {
    stack = await startTestStack({
      MUSE_CHAT_AUTH_ATTEMPTS: '3',
      MUSE_CHAT_AUTH_ADDRESS_ATTEMPTS: '6',
      MUSE_TRUST_PROXY: 'loopback',
    });
    await makeOrganization(stack);
  });
  afterAll(() => stack.stop());

  const guess = (username: string, password: string, headers = fromAddress()) =>
    call(stack.chatUrl, 'POST', '/fetch_api_key', null, { username, password }, headers);

  it('fetch_api_key: every spelling of an account shares one limit (user03@ is user 3)', async () => {
    const user = await makeUser(stack);
    const address = fromAddress();
    for (let i = 0; i < 3; i++)
      expect((await guess(`user${user.id}@localhost`, 'nope', address)).status).toBe(401);
    const padded = await guess(`user${String(user.id).padStart(6, '0')}@localhost`, user.password, address);
    expect(padded.status).toBe(429);
    expect((await guess(user.email.toUpperCase(), user.password, address)).status).toBe(429);
  });

  it("fetch_api_key: a stranger's wrong passwords from another address do not lock the owner out", async () => {
    const user = await makeUser(stack);
    const owner = fromAddress();
    const stranger = fromAddress();
    const answers = [];
    for (let i = 0; i < 20; i++) answers.push((await guess(user.email, 'nope', stranger)).status);
    expect(answers).toEqual([401, 401, 401, ...Array<number>(17).fill(429)]);
    expect((await guess(user.email, user.password, owner)).status).toBe(200);
    // The stranger's address stays refused, the right password included.
    expect((await guess(user.email, user.password, stranger)).status).toBe(429);
  });

  it('fetch_api_key: guesses from many addresses are bounded per account too', async () => {
    const user = await makeUser(stack);
    // One wrong guess from each of 31 addresses: the account's bound over all of them is 3 × 10.
    const statuses = [];
    for (let i = 0; i < 31; i++) statuses.push((await guess(user.email, 'nope', fromAddress())).status);
    expect(statuses.slice(0, 30).every((status) => status === 401)).toBe(true);
    expect(statuses[30]).toBe(429);
  });

  it('fetch_api_key: parallel guesses are counted before the password is checked', async () => {
    const user = await makeUser(stack);
    const address = fromAddress();
    const answers = await Promise.all(Array.from({ length: 60 }, () => guess(user.email, 'nope', address)));
    const checked = answers.filter((a) => a.status === 401).length;
    expect(checked).toBeLessThanOrEqual(3);
    expect(answers.filter((a) => a.status === 429).length).toBe(60 - checked);
  });

  it('fetch_api_key: one address trying many accounts is limited too', async () => {
    const address = fromAddress();
    const users = await Promise.all(Array.from({ length: 7 }, () => makeUser(stack)));
    for (const user of users.slice(0, 6)) expect((await guess(user.email, 'nope', address)).status).toBe(401);
    expect((await guess(users[6]!.email, users[6]!.password, address)).status).toBe(429);
    expect((await guess(users[6]!.email, users[6]!.password)).status).toBe(200);
  });

  it('fetch_api_key: a right password does not use up the attempts', async () => {
    const user = await makeUser(stack);
    const address = fromAddress();
    for (let i = 0; i < 8; i++) expect((await guess(user.email, user.password, address)).status).toBe(200);
  });

  it('alert words: a list past the limit is refused whole, in one clear error', async () => {
    const user = await makeUser(stack);
    const many = Array.from({ length: 6000 }, (_, i) => `word${i}`);
    const refused = await call(stack.chatUrl, 'POST', '/users/me/alert_words', user, { alert_words: many });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Too many alert words (limit: 1000)' });
    const kept = await call(stack.chatUrl, 'GET', '/users/me/alert_words', user);
    expect(kept.body.alert_words).toEqual([]);
    const allowed = await call(stack.chatUrl, 'POST', '/users/me/alert_words', user, {
      alert_words: many.slice(0, 1000),
    });
    expect(allowed.status).toBe(200);
    expect((allowed.body.alert_words as string[]).length).toBe(1000);
  });

  it('subscriptions: one request may not subscribe to 200 channels, nor change more than 1000 pairs', async () => {
    const user = await makeUser(stack);
    const channels = Array.from({ length: 200 }, (_, i) => ({ name: `bulk-${user.id}-${i}` }));
    const refused = await call(stack.chatUrl, 'POST', '/users/me/subscriptions', user, {
      subscriptions: channels,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.msg).toMatch(/^Too many subscription changes in one request/);
    const principals = Array.from({ length: 11 }, () => user.id);
    const pairs = await call(stack.chatUrl, 'DELETE', '/users/me/subscriptions', user, {
      subscriptions: channels.slice(0, 100).map((c) => c.name),
      principals,
    });
    expect(pairs.status).toBe(400);
  });

  it('pool exhaustion answers 503 with Retry-After, not 500', async () => {
    const user = await makeUser(stack);
    const chat = await chatOnPool(stack, { acquireTimeoutMs: 300 });
    try {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let holding!: () => void;
      const isHolding = new Promise<void>((resolve) => (holding = resolve));
      const holder = chat.db.transaction(async () => (holding(), await held));
      await isHolding;
      const answer = await call(chat.url, 'GET', '/users/me/alert_words', user).finally(release);
      await holder;
      expect(answer.status).toBe(503);
      expect(answer.body.code).toBe('SERVICE_UNAVAILABLE');
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await chat.close();
    }
  });

  it('a request statement stuck past the statement timeout is cancelled: 503, the connection freed', async () => {
    const user = await makeUser(stack);
    const chat = await chatOnPool(stack, { statementTimeoutMs: 500 });
    try {
      // Another process holds the lock (the stack's own handle has one connection, which the
      // app's shared parts also use).
      const other = createDatabase(stack.database.url);
      const locker = await other.transaction();
      await other.query('LOCK TABLE chat.alert_words IN ACCESS EXCLUSIVE MODE', { transaction: locker });
      const answer = await Promise.race([
        call(chat.url, 'POST', '/users/me/alert_words', user, { alert_words: ['stuck'] }),
        new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), 10_000)),
      ]);
      await locker.rollback();
      await other.close();
      expect(answer).not.toBe('still waiting');
      if (answer === 'still waiting') return;
      expect(answer.status).toBe(503);
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await call(chat.url, 'GET', '/users/me/alert_words', user)).status).toBe(200);
    } finally {
      await chat.close();
    }
  });

  it('a NUL character or deep nesting in a JSON parameter is 400 BAD_REQUEST, not 500', async () => {
    const user = await makeUser(stack);
    const nul = await call(stack.chatUrl, 'POST', '/register', user, { event_types: '["message\\u0000"]' });
    expect(nul.status).toBe(400);
    expect(nul.body).toMatchObject({
      code: 'BAD_REQUEST',
      msg: 'event_types contains a NUL (0x00) character',
    });
    const deep = await call(stack.chatUrl, 'POST', '/register', user, {
      event_types: `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
    });
    expect(deep.status).toBe(400);
    expect(deep.body.msg).toMatch(/nested deeper than 64/);
  });

  it('a hidden email does not leak through the avatar (no hash of it in avatar_url)', async () => {
    const hidden = await makeUser(stack, { visibility: 4 });
    const viewer = await makeUser(stack);
    const hash = createHash('md5').update(hidden.email.toLowerCase()).digest('hex');
    const user = await call(stack.chatUrl, 'GET', `/users/${hidden.id}`, viewer, { client_gravatar: false });
    expect(user.status).toBe(200);
    expect(JSON.stringify(user.body)).not.toContain(hash);
    const all = await call(stack.chatUrl, 'GET', '/users', viewer, { client_gravatar: true });
    expect(JSON.stringify(all.body)).not.toContain(hash);
  });

  it('profile URL fields accept only real http(s) URLs', async () => {
    const owner = await makeUser(stack, { role: 100 });
    const created = await call(stack.chatUrl, 'POST', '/realm/profile_fields', owner, {
      name: `Site ${owner.id}`,
      field_type: 5,
    });
    expect(created.status).toBe(200);
    const fieldId = created.body.id as number;
    for (const value of [
      'https://x"onmouseover="alert(1)',
      "https://ok.example/'><script>",
      'javascript:alert(1)',
      'https://a b',
    ]) {
      const answer = await call(stack.chatUrl, 'PATCH', '/users/me/profile_data', owner, {
        data: [{ id: fieldId, value }],
      });
      expect(answer.status, value).toBe(400);
    }
    const good = await call(stack.chatUrl, 'PATCH', '/users/me/profile_data', owner, {
      data: [{ id: fieldId, value: 'https://example.com/a?b=c' }],
    });
    expect(good.status).toBe(200);
  });
});

/** Zulip's per-user rate limit on writes (issue 38, finding 6), with a small limit. */
describe('messaging API: per-user write limit', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({
      MUSE_CHAT_USER_WRITES: '5',
      MUSE_CHAT_USER_WRITES_WINDOW_SECONDS: '3600',
    });
    await makeOrganization(stack);
  });
  afterAll(() => stack.stop());

  it('lets five writes of twelve at once through, refuses the rest as Zulip does, and counts no reads', async () => {
    const user = await makeUser(stack);
    const other = await makeUser(stack);
    const answers = await Promise.all(
      Array.from({ length: 12 }, () =>
        call(stack.chatUrl, 'POST', '/users/me/presence', user, { status: 'active' }),
      ),
    );
    const passed = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status === 429);
    expect([passed.length, refused.length]).toEqual([5, 7]);
    expect(passed.map((answer) => Number(answer.headers.get('x-ratelimit-remaining'))).sort()).toEqual([
      0, 1, 2, 3, 4,
    ]);
    const now = Date.now() / 1000;
    for (const answer of refused) {
      expect(answer.body).toMatchObject({
        result: 'error',
        code: 'RATE_LIMIT_HIT',
        msg: 'API usage exceeded rate limit',
      });
      const retryAfter = answer.body['retry-after'] as number;
      expect(retryAfter).toBeGreaterThan(0);
      expect(answer.headers.get('retry-after')).toBe(String(retryAfter));
      expect(answer.headers.get('x-ratelimit-limit')).toBe('5');
      expect(answer.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(answer.headers.get('x-ratelimit-reset'))).toBeGreaterThan(now);
    }

    // A refused write is not run: the message is not sent.
    const message = await call(stack.chatUrl, 'POST', '/messages', user, {
      type: 'direct',
      to: [other.id],
      content: 'over the limit',
    });
    expect(message.status).toBe(429);
    const inbox = await call(stack.chatUrl, 'GET', '/messages', other, {
      anchor: 'newest',
      num_before: 10,
      num_after: 0,
      narrow: [],
    });
    expect(inbox.body.messages).toEqual([]);
    // Reads are not counted, and another user has a count of their own.
    expect((await call(stack.chatUrl, 'GET', '/users/me', user)).status).toBe(200);
    expect(
      (await call(stack.chatUrl, 'POST', '/users/me/presence', other, { status: 'active' })).status,
    ).toBe(200);
  });
});
