import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { QueryTypes } from 'sequelize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundFetch } from '@muse/core';
import { outgoingWebhookWorkflowId } from '@muse/chat-api/outgoing-webhook-contract';
import { deliverOutgoingWebhook } from '@muse/chat-api/workflow-steps';
import { startMuseServer, type MuseProcess } from '@muse/test-support/processes';
import { startTestStack, workerProcessEnv, type TestStack } from '@muse/test-support/stack';
import { call, makeOrganization, makeUser, waitUntil, type TestUser } from '@muse/test-support/chat';

/**
 * An outgoing-webhook delivery is finished exactly once: a worker killed (SIGKILL) while the bot
 * server is answering is replaced and the call repeated, and the bot's reply is posted once;
 * two attempts of one trigger at the same time post one reply.
 */
/**
 * A bot server has 3 s to answer (10 s in production), so the killed worker's attempt is given
 * up, and repeated elsewhere, 3 s + 10 s after it began (20 s).
 */
const SHORT_CALLS = { MUSE_CHAT_WEBHOOK_TIMEOUT_SECONDS: '3' };

describe('outgoing webhook delivery survives a killed worker', () => {
  let stack: TestStack;
  let owner: TestUser;
  let alice: TestUser;
  let botServer: http.Server;
  let botUrl: string;
  const calls: string[] = [];
  /** The first call is held (never answered) until the test lets go; the others are answered. */
  let holdFirst = true;
  let arrived: () => void = () => {};
  const firstArrived = new Promise<void>((resolve) => (arrived = resolve));

  const workers = new Set<MuseProcess>();
  const startWorker = async () => {
    const worker = startMuseServer(['worker'], {
      ...workerProcessEnv(stack),
      MUSE_OUTBOUND_ALLOW: '127.0.0.1',
      ...SHORT_CALLS,
    });
    workers.add(worker);
    await worker.waitForOutput(/worker running/);
    return worker;
  };
  const createBot = async (name: string) => {
    const reply = await call(stack.chatUrl, 'POST', '/bots', owner, {
      full_name: name,
      short_name: name.toLowerCase().replace(/\W+/g, ''),
      bot_type: 3,
      payload_url: JSON.stringify(botUrl),
    });
    return reply.body.user_id as number;
  };
  const repliesOf = async (botId: number) =>
    stack.database.db.query<{ content: string }>(
      'SELECT content FROM chat.messages WHERE sender_id = :botId',
      {
        replacements: { botId },
        type: QueryTypes.SELECT,
      },
    );

  beforeAll(async () => {
    stack = await startTestStack(SHORT_CALLS);
    await makeOrganization(stack);
    owner = await makeUser(stack);
    alice = await makeUser(stack);
    botServer = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const payload = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: string };
        calls.push(payload.data);
        if (holdFirst) {
          holdFirst = false;
          arrived();
          return; // no answer: the worker making this call dies waiting
        }
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ content: `done: ${payload.data}` }));
      });
    });
    await new Promise<void>((resolve) => botServer.listen(0, '127.0.0.1', resolve));
    botUrl = `http://127.0.0.1:${(botServer.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    for (const worker of workers) {
      if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
      await worker.exited();
    }
    botServer.closeAllConnections();
    botServer.close();
    await stack.stop();
  });

  it('the worker is killed mid-call; another repeats it and the reply is posted once', async () => {
    const botId = await createBot('Sturdy Bot');
    const first = await startWorker();
    await call(stack.chatUrl, 'POST', '/messages', alice, {
      type: 'direct',
      to: JSON.stringify([botId]),
      content: 'survive this',
    });
    await firstArrived;
    first.child.kill('SIGKILL');
    await first.exited();
    expect(await repliesOf(botId)).toEqual([]);

    await startWorker();
    await waitUntil(async () => (await repliesOf(botId)).length > 0, 'the reply', 120_000);
    const [trigger] = await stack.database.db.query<{ id: string; outcome: string }>(
      'SELECT id, outcome FROM chat.outgoing_webhook_triggers WHERE bot_id = :botId',
      { replacements: { botId }, type: QueryTypes.SELECT },
    );
    const handle = stack.temporal.workflow.getHandle(
      outgoingWebhookWorkflowId(stack.taskQueue, Number(trigger!.id)),
    );
    expect(await handle.result()).toBe('replied');
    expect(calls).toEqual(['survive this', 'survive this']);
    expect(await repliesOf(botId)).toEqual([{ content: 'done: survive this' }]);
    expect(trigger!.outcome).toBe('replied');
  }, 240_000);

  it('two attempts of one trigger at once post one reply', async () => {
    const botId = await createBot('Twice Bot');
    // No worker runs its workflow: the two attempts below are the test's own.
    for (const worker of workers) {
      if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
      await worker.exited();
    }
    const messageId = (
      await call(stack.chatUrl, 'POST', '/messages', alice, {
        type: 'direct',
        to: JSON.stringify([botId]),
        content: 'only once',
      })
    ).body.id as number;
    const [trigger] = await stack.database.db.query<{ id: string }>(
      'SELECT id FROM chat.outgoing_webhook_triggers WHERE message_id = :messageId',
      { replacements: { messageId }, type: QueryTypes.SELECT },
    );
    const deps = {
      db: stack.database.db,
      config: stack.config,
      fetch: createOutboundFetch({ allow: '127.0.0.1' }),
    };
    const outcomes = await Promise.all([
      deliverOutgoingWebhook(deps, Number(trigger!.id)),
      deliverOutgoingWebhook(deps, Number(trigger!.id)),
    ]);
    expect(outcomes.sort()).toEqual(['finished-before', 'replied']);
    expect(await repliesOf(botId)).toEqual([{ content: 'done: only once' }]);
  }, 120_000);
});
