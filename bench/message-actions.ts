/**
 * Twenty members of one channel acting on messages at the same moment (issue 37), each with an
 * event queue long-polled throughout: per round, 20 plain sends at once (each member one), then
 * 20 reactions at once to one message, 20 edits at once (each member its own message of the
 * round) and 20 deletes at once (the same). Per kind: requests, errors (any answer but 200),
 * latency p50/p99/max; and the polls' errors. Kinds that lock a message row (reactions, edits,
 * deletes) are what exhausted the connection pool; sends beside them in the same run are the
 * baseline.
 *
 *   node bench/message-actions.ts [--members 20] [--rounds 10]
 */
import http from 'node:http';
import { parseArgs } from 'node:util';
import { createChatUser, createOrganization } from '@muse/chat-api';
import { startBenchStack, startChatApi } from './lib.ts';
import { basic, form, sendOver, type Answer } from './chat-client.ts';

const { values } = parseArgs({
  options: {
    members: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '10' },
  },
});
const MEMBERS = Number(values.members);
const ROUNDS = Number(values.rounds);
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 * MEMBERS });
const KINDS = ['send', 'react', 'edit', 'delete'] as const;
type Kind = (typeof KINDS)[number];

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

interface Member {
  headers: Record<string, string>;
  queueId: string;
}

async function main(): Promise<void> {
  const stack = await startBenchStack();
  // Polls wait a while between heartbeats, as a client's do.
  const { port, server } = await startChatApi(stack, { MUSE_CHAT_HEARTBEAT_MS: '20000' });
  const call = (member: Member, method: string, path: string, params: Record<string, string> = {}) =>
    method === 'GET' || method === 'DELETE'
      ? sendOver(agent, port, method, `/api/v1${path}?${form(params)}`, member.headers)
      : sendOver(agent, port, method, `/api/v1${path}`, member.headers, form(params));
  let polling = true;
  const pollErrors: string[] = [];
  try {
    const subdomain = `actions${Date.now()}`;
    await createOrganization(stack.db, { subdomain, name: 'Actions' });
    const members: Member[] = [];
    for (let i = 0; i < MEMBERS; i++) {
      const user = await createChatUser(stack.db, {
        subdomain,
        email: `m${i}@${subdomain}.example.com`,
        fullName: `Member ${i}`,
        role: 400,
      });
      members.push({
        headers: { ...basic(user.delivery_email, user.api_key), host: `${subdomain}.localhost` },
        queueId: '',
      });
    }
    const joined = await call(members[0]!, 'POST', '/users/me/subscriptions', {
      subscriptions: '[{"name":"together"}]',
      principals: JSON.stringify(
        await Promise.all(members.map(async (m) => userId(await call(m, 'GET', '/users/me')))),
      ),
    });
    if (joined.status !== 200) throw new Error(`subscribe: ${joined.status} ${joined.body}`);
    for (const member of members) {
      const answer = await call(member, 'POST', '/register', { fetch_event_types: '[]' });
      if (answer.status !== 200) throw new Error(`register: ${answer.status} ${answer.body}`);
      member.queueId = (JSON.parse(answer.body) as { queue_id: string }).queue_id;
    }
    // Every member long-polls its queue for the whole run, as a client does.
    const polls = members.map(async (member) => {
      let last = -1;
      while (polling) {
        const answer = await call(member, 'GET', '/events', {
          queue_id: member.queueId,
          last_event_id: String(last),
        });
        if (answer.status !== 200) {
          pollErrors.push(`${answer.status} ${answer.body.slice(0, 120)}`);
          if (answer.body.includes('BAD_EVENT_QUEUE_ID')) return;
          continue;
        }
        for (const event of (JSON.parse(answer.body) as { events: { id: number }[] }).events)
          last = Math.max(last, event.id);
      }
    });

    const latencies = new Map<Kind, number[]>(KINDS.map((k) => [k, []]));
    const errors = new Map<Kind, string[]>(KINDS.map((k) => [k, []]));
    /** Each member's request of one kind, all at once; its answers. */
    const burst = async (kind: Kind, request: (member: Member, i: number) => Promise<Answer>) =>
      Promise.all(
        members.map(async (member, i) => {
          const started = performance.now();
          const answer = await request(member, i);
          latencies.get(kind)!.push(performance.now() - started);
          if (answer.status !== 200) errors.get(kind)!.push(`${answer.status} ${answer.body.slice(0, 120)}`);
          return answer;
        }),
      );
    for (let round = 0; round < ROUNDS; round++) {
      const sent = await burst('send', (m, i) =>
        call(m, 'POST', '/messages', {
          type: 'stream',
          to: 'together',
          topic: `round ${round}`,
          content: `member ${i}, round ${round}`,
        }),
      );
      const ids = sent.map((a) => (a.status === 200 ? (JSON.parse(a.body) as { id: number }).id : 0));
      const target = ids.find((id) => id > 0);
      if (!target) throw new Error('no message was sent in this round');
      await burst('react', (m) =>
        call(m, 'POST', `/messages/${target}/reactions`, { emoji_name: 'octopus' }),
      );
      await burst('edit', (m, i) => call(m, 'PATCH', `/messages/${ids[i]}`, { content: `edited ${round}` }));
      await burst('delete', (m, i) => call(m, 'DELETE', `/messages/${ids[i]}`));
    }
    polling = false;
    // Wake the polls so they end: one last message each of them is told of.
    await call(members[0]!, 'POST', '/messages', {
      type: 'stream',
      to: 'together',
      topic: 'end',
      content: 'end',
    });
    await Promise.all(polls);

    console.log(`${MEMBERS} members at once, ${ROUNDS} rounds, every member's queue long-polled throughout`);
    console.log('kind | requests | errors | p50 ms | p99 ms | max ms');
    for (const kind of KINDS) {
      const sorted = latencies.get(kind)!.sort((a, b) => a - b);
      console.log(
        [
          kind,
          sorted.length,
          errors.get(kind)!.length,
          quantile(sorted, 0.5).toFixed(1),
          quantile(sorted, 0.99).toFixed(1),
          quantile(sorted, 1).toFixed(1),
        ].join(' | '),
      );
      for (const error of new Set(errors.get(kind))) console.log(`  ${kind} error: ${error}`);
    }
    console.log(`poll errors: ${pollErrors.length}`);
    for (const error of new Set(pollErrors)) console.log(`  poll error: ${error}`);
  } finally {
    polling = false;
    await server.stop();
    await stack.stop();
  }
}

const userId = (answer: Answer) => (JSON.parse(answer.body) as { user_id: number }).user_id;

await main();
