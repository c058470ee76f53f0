import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '@muse/test-support/fakes/http-fake';
import { startTestStack, type TestStack } from '@muse/test-support/stack';
import {
  call,
  makeOrganization,
  makeUser,
  secondsFromNow,
  waitUntil,
  type TestUser,
} from '@muse/test-support/chat';

interface Payload {
  bot_email: string;
  bot_full_name: string;
  data: string;
  token: string;
  trigger: string;
  message: Record<string, unknown>;
}

/**
 * Outgoing-webhook bots: a mention in a channel or a direct message calls the bot's URL (through
 * the outbound guard) on a real Temporal worker, and the answer becomes the bot's reply. The bot
 * server is a fake that checks the token as zulip-botserver does.
 */
describe('outgoing webhooks', () => {
  let stack: TestStack;
  let owner: TestUser;
  let alice: TestUser;
  let server: FakeServer;
  /** What the fake answers, by the content of the triggering message. */
  const answers = new Map<string, { status: number; body: unknown }>();
  const tokens = new Map<string, string>();
  const url = () => stack.chatUrl;

  const createBot = async (name: string, payloadUrl: string) => {
    const reply = await call(url(), 'POST', '/bots', owner, {
      full_name: name,
      short_name: name.toLowerCase().replace(/\W+/g, ''),
      bot_type: 3,
      payload_url: JSON.stringify(payloadUrl),
    });
    const bot = {
      id: reply.body.user_id as number,
      email: '',
      apiKey: reply.body.api_key as string,
      password: '',
    };
    const state = await call(url(), 'POST', '/register', owner, { fetch_event_types: ['realm_bot'] });
    const listed = (
      state.body.realm_bots as { user_id: number; email: string; services: { token: string }[] }[]
    ).find((b) => b.user_id === bot.id)!;
    bot.email = listed.email;
    tokens.set(listed.email, listed.services[0]!.token);
    return bot;
  };
  const botMessages = async (botId: number) =>
    stack.database.db.query<{
      id: number;
      content: string;
      stream_id: number | null;
      topic: string;
      recipient_ids: number[] | null;
    }>(
      'SELECT id, content, stream_id, topic, recipient_ids FROM chat.messages WHERE sender_id = :botId ORDER BY id',
      { replacements: { botId }, type: QueryTypes.SELECT },
    );
  const waitForBotMessages = async (botId: number, n: number) => {
    await waitUntil(
      async () => (await botMessages(botId)).length >= n,
      `${n} messages from bot ${botId}`,
      60_000,
    );
    return botMessages(botId);
  };
  const send = async (from: TestUser, params: Record<string, unknown>) =>
    (await call(url(), 'POST', '/messages', from, params)).body.id as number;
  const payloadsFor = (content: string) =>
    server.requests.map((r) => JSON.parse(r.body) as Payload).filter((p) => p.data === content);

  beforeAll(async () => {
    stack = await startTestStack({ MUSE_CHAT_HEARTBEAT_MS: '1000', MUSE_CHAT_WEBHOOK_SWEEP_MS: '1000' });
    await makeOrganization(stack);
    owner = await makeUser(stack, { name: 'Olive Owner' });
    alice = await makeUser(stack, { name: 'Alice Asker' });
    await call(url(), 'POST', '/users/me/subscriptions', alice, { subscriptions: [{ name: 'lobby' }] });
    server = await startFakeServer((request) => {
      const payload = JSON.parse(request.body) as Payload;
      // zulip-botserver refuses a token that is not the bot's.
      if (tokens.get(payload.bot_email) !== payload.token) return { status: 401, body: { msg: 'bad token' } };
      return answers.get(payload.data) ?? { status: 200, body: { content: `echo: ${payload.data}` } };
    });
    await stack.startWorker();
  });
  afterAll(async () => {
    await server?.close();
    await stack.stop();
  });

  it("a mention in a channel sends Zulip's payload and posts the answer as the bot's reply", async () => {
    const bot = await createBot('Echo Bot', `${server.url}/hook`);
    const content = '@**Echo Bot** what time is it?';
    const messageId = await send(alice, { type: 'stream', to: 'lobby', topic: 'questions', content });
    const [reply] = await waitForBotMessages(bot.id, 1);
    expect(reply).toMatchObject({
      content: `echo: ${content}`,
      topic: 'questions',
      stream_id: expect.any(Number),
    });
    const [payload] = payloadsFor(content);
    expect(payload).toMatchObject({
      bot_email: bot.email,
      bot_full_name: 'Echo Bot',
      trigger: 'mention',
      token: tokens.get(bot.email),
      message: {
        id: messageId,
        content,
        rendered_content: expect.stringContaining('user-mention'),
        type: 'stream',
        display_recipient: 'lobby',
        subject: 'questions',
        sender_id: alice.id,
        sender_full_name: 'Alice Asker',
      },
    });
    expect(server.requests.at(-1)!.headers['content-type']).toBe('application/json');
  });

  it('a direct message triggers it too; the reply goes to the same conversation', async () => {
    const bot = await createBot('Direct Bot', server.url);
    await send(alice, { type: 'direct', to: JSON.stringify([bot.id]), content: 'hello there' });
    const [reply] = await waitForBotMessages(bot.id, 1);
    expect(reply!.content).toBe('echo: hello there');
    expect([...reply!.recipient_ids!].sort()).toEqual([alice.id, bot.id].sort());
    expect(payloadsFor('hello there')[0]!.trigger).toBe('direct_message');
  });

  it('response_not_required, or no content, posts nothing; a message without the mention calls nobody', async () => {
    const bot = await createBot('Quiet Bot', server.url);
    answers.set('@**Quiet Bot** shh', { status: 200, body: { response_not_required: true } });
    answers.set('@**Quiet Bot** blank', { status: 200, body: { content: '  ' } });
    await send(alice, { type: 'stream', to: 'lobby', topic: 'quiet', content: '@**Quiet Bot** shh' });
    await send(alice, { type: 'stream', to: 'lobby', topic: 'quiet', content: '@**Quiet Bot** blank' });
    await send(alice, {
      type: 'stream',
      to: 'lobby',
      topic: 'quiet',
      content: 'Quiet Bot is not mentioned `@**Quiet Bot**`',
    });
    await waitUntil(
      async () => {
        const [row] = await stack.database.db.query<{ n: string }>(
          "SELECT count(*) AS n FROM chat.outgoing_webhook_triggers WHERE bot_id = :id AND outcome = 'no-reply'",
          { replacements: { id: bot.id }, type: QueryTypes.SELECT },
        );
        return Number(row!.n) === 2;
      },
      'both triggers finished',
      60_000,
    );
    expect(await botMessages(bot.id)).toEqual([]);
    expect(
      server.requests.filter((r) => (JSON.parse(r.body) as Payload).bot_full_name === 'Quiet Bot'),
    ).toHaveLength(2);
  });

  it('an error answer: "Failure! Third party responded with N" where it was asked, and a notice to the owner', async () => {
    const bot = await createBot('Broken Bot', server.url);
    answers.set('@**Broken Bot** fail', { status: 400, body: { error: 'nope' } });
    const messageId = await send(alice, {
      type: 'stream',
      to: 'lobby',
      topic: 'broken',
      content: '@**Broken Bot** fail',
    });
    const messages = await waitForBotMessages(bot.id, 2);
    expect(messages.find((m) => m.stream_id !== null)!.content).toBe(
      'Failure! Third party responded with 400',
    );
    const notice = messages.find((m) => m.stream_id === null)!;
    expect([...notice.recipient_ids!].sort()).toEqual([owner.id, bot.id].sort());
    expect(notice.content).toContain(
      `#narrow/near/${messageId}) to your bot @_**Broken Bot** triggered an outgoing webhook.`,
    );
    expect(notice.content).toContain('The webhook got a response with status code *400*.');
    expect(notice.content).toContain('{"error":"nope"}');
  });

  it('a bot server that is down gets retries with back-off, then "Bot is unavailable" and the owner is told', async () => {
    // Accepts connections and drops them: each attempt is one connection.
    const net = await import('node:net');
    let connections = 0;
    const dropping = net.createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => dropping.listen(0, '127.0.0.1', resolve));
    const port = (dropping.address() as { port: number }).port;
    try {
      const bot = await createBot('Down Bot', `http://127.0.0.1:${port}/`);
      await send(alice, { type: 'direct', to: JSON.stringify([bot.id]), content: 'anyone there?' });
      const messages = await waitForBotMessages(bot.id, 2);
      expect(connections).toBe(4);
      expect(messages.find((m) => m.recipient_ids!.includes(alice.id))!.content).toBe(
        'Failure! Bot is unavailable',
      );
      const notice = messages.find((m) => m.recipient_ids!.includes(owner.id))!;
      expect(notice.content).toContain('A connection error occurred. Is my bot server down?');
    } finally {
      dropping.close();
    }
  });

  it('the outbound guard refuses an internal URL: nothing is called, the owner is told', async () => {
    const bot = await createBot('Internal Bot', 'http://169.254.169.254/latest/meta-data');
    await send(alice, { type: 'direct', to: JSON.stringify([bot.id]), content: 'metadata please' });
    const messages = await waitForBotMessages(bot.id, 2);
    const notice = messages.find((m) => m.recipient_ids!.includes(owner.id))!;
    expect(notice.content).toContain(
      'The URL configured for the webhook is for a private or disallowed network.',
    );
  });

  it("a bot's own messages trigger no bot", async () => {
    const first = await createBot('Loop One', server.url);
    const second = await createBot('Loop Two', server.url);
    await send(first, { type: 'direct', to: JSON.stringify([second.id]), content: 'ping from a bot' });
    await send(alice, { type: 'direct', to: JSON.stringify([first.id]), content: 'marker' });
    await waitForBotMessages(first.id, 2);
    expect(payloadsFor('ping from a bot')).toEqual([]);
  });

  it('a scheduled message, delivered by the worker, triggers the bot too (the sweep starts it)', async () => {
    const bot = await createBot('Later Bot', server.url);
    const scheduled = await call(url(), 'POST', '/scheduled_messages', alice, {
      type: 'direct',
      to: JSON.stringify([bot.id]),
      content: 'see you later',
      scheduled_delivery_timestamp: secondsFromNow(2),
    });
    expect(scheduled.status).toBe(200);
    const [reply] = await waitForBotMessages(bot.id, 1);
    expect(reply!.content).toBe('echo: see you later');
    expect(payloadsFor('see you later')).toHaveLength(1);
  });
});
