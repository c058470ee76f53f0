/**
 * Full-text search (issue 40): an organization of 50 channels with many messages written straight
 * into the database, and a member who can see 10 of them (subscribed to 10 public channels; the 40
 * others are private without them). The member searches, one request at a time, for one word and
 * for a quoted phrase (`GET /messages`, narrow `search`, the newest 50). Beside each, in the same
 * run, alternated with ours, two baselines: the same `tsquery` run bare against Postgres over the
 * same channels (a prepared statement through `pg`, the newest 50 ids; the issue's baseline), and
 * a bare `node:http` + `pg` server answering the same request with the same body (`bare.ts
 * search`: the same Basic credentials checked, a prepared statement for the page with everything
 * it shows; the developers' guide's "same body" baseline). p50 and p99 of each, each baseline's
 * p50 over ours as its ratio; ours checked against both before and at every search (the ids, and
 * the whole body byte for byte; the bench fails otherwise). Beside them, not a baseline:
 * `ts_headline` over the page alone (bare), what the highlights (`match_content`) cost. Then the
 * size of the search table and its GIN index.
 *
 * Words are drawn from a 2,000-word vocabulary with Zipf-like frequencies (rank k about 1/k), 12 a
 * message; the word searched is rank 50 (about 3 % of messages hold it), the phrase ranks 10 and
 * 20 side by side (about 0.1 %).
 *
 *   node bench/search.ts [--messages 1000000] [--requests 200]
 */
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createChatUser, createOrganization } from '@muse/chat-api';
import os from 'node:os';
import {
  freePort,
  processCpuMs,
  ratio,
  serverNodeOptions,
  startBare,
  startBenchStack,
  startProcess,
} from './lib.ts';
import { basic, form, sendOver } from './chat-client.ts';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '1000000' },
    requests: { type: 'string', default: '200' },
  },
});
const MESSAGES = Number(values.messages);
const REQUESTS = Number(values.requests);
const VOCABULARY = 2000;
const WORDS_PER_MESSAGE = 12;
const PAGE = 50;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

/** Pronounceable made-up words the English stemmer leaves whole (they end in a, o or u). */
function vocabulary(): string[] {
  const consonants = 'bdfgklmnprtvz';
  const vowels = 'aou';
  const syllables = [...consonants].flatMap((c) => [...vowels].map((v) => c + v));
  const words: string[] = [];
  for (let i = 0; words.length < VOCABULARY; i++) {
    const a = syllables[i % syllables.length]!;
    const b = syllables[Math.floor(i / syllables.length) % syllables.length]!;
    const c = syllables[Math.floor(i / syllables.length ** 2) % syllables.length]!;
    words.push(a + b + c);
  }
  return words;
}

async function main(): Promise<void> {
  const stack = await startBenchStack();
  const port = await freePort();
  const server = await startProcess(
    [
      ...serverNodeOptions(),
      fileURLToPath(new URL('../packages/server/src/main.ts', import.meta.url)),
      'chat-api',
    ],
    { ...stack.serverEnv, MUSE_CHAT_PORT: String(port) },
    port,
    180_000,
  );
  const sameBodyServer = await startBare('search', {
    DATABASE_URL: stack.databaseUrl,
    MUSE_CHAT_REALM_HOST: stack.config.MUSE_CHAT_REALM_HOST,
  });
  const bare = new pg.Client({ connectionString: stack.databaseUrl });
  await bare.connect();
  try {
    const subdomain = `search${Date.now()}`;
    const realm = await createOrganization(stack.db, { subdomain, name: 'Search' });
    const person = (email: string, role: number) =>
      createChatUser(stack.db, {
        subdomain,
        email: `${email}@${subdomain}.example.com`,
        fullName: email,
        role,
      });
    const creator = await person('creator', 100);
    const reader = await person('reader', 400);
    const headers = (user: { delivery_email: string; api_key: string }) => ({
      ...basic(user.delivery_email, user.api_key),
      host: `${subdomain}.localhost`,
    });
    const post = async (path: string, params: Record<string, string>) => {
      const answer = await sendOver(agent, port, 'POST', `/api/v1${path}`, headers(creator), form(params));
      if (answer.status !== 200) throw new Error(`POST ${path}: ${answer.status} ${answer.body}`);
    };
    const names = (prefix: string, n: number) =>
      JSON.stringify(Array.from({ length: n }, (_, i) => ({ name: `${prefix} ${i}` })));
    await post('/users/me/subscriptions', {
      subscriptions: names('seen', 10),
      principals: JSON.stringify([creator.id, reader.id]),
    });
    await post('/users/me/subscriptions', { subscriptions: names('hidden', 40), invite_only: 'true' });

    const channels = (
      await bare.query<{ id: number; name: string }>(
        "SELECT id, name FROM chat.streams WHERE realm_id = $1 AND name ~ '^(seen|hidden) '",
        [realm.id],
      )
    ).rows.map((r) => r.id);
    const readable = (
      await bare.query<{ stream_id: number }>(
        'SELECT stream_id FROM chat.subscriptions WHERE user_id = $1 AND active',
        [reader.id],
      )
    ).rows.map((r) => r.stream_id);

    const words = vocabulary();
    const began = performance.now();
    await generate(bare, realm.id, creator.id, channels, words);
    const generatedSeconds = (performance.now() - began) / 1000;

    const readerHeaders = headers(reader);
    /** The body of the search request, from the API or (`to` its port) the same-body bare server. */
    const searchBody = async (search: string, to: number) => {
      const query = form({
        narrow: JSON.stringify([{ operator: 'search', operand: search }]),
        anchor: 'newest',
        num_before: String(PAGE),
        num_after: '0',
      });
      const answer = await sendOver(agent, to, 'GET', `/api/v1/messages?${query}`, readerHeaders);
      if (answer.status !== 200) throw new Error(`search ${search}: ${answer.status} ${answer.body}`);
      return answer.body;
    };
    const ids = (body: string) =>
      (JSON.parse(body) as { messages: { id: number }[] }).messages.map((m) => m.id);
    const ours = (search: string) => searchBody(search, port);
    const sameBody = (search: string) => searchBody(search, sameBodyServer.port);
    const statement = {
      name: 'search',
      text: `SELECT m.id FROM chat.messages m JOIN chat.message_search s ON s.message_id = m.id
             WHERE s.tsv @@ websearch_to_tsquery(chat.search_config(), $1) AND m.stream_id = ANY($2)
             ORDER BY m.id DESC LIMIT ${PAGE}`,
    };
    const baseline = async (search: string) =>
      (await bare.query<{ id: string }>({ ...statement, values: [search, readable] })).rows
        .map((r) => Number(r.id))
        .reverse();
    // Not the goal's baseline: what highlighting the page alone costs, to tell it from the rest.
    const highlighting = {
      name: 'highlight',
      text: `SELECT ts_headline(chat.search_config(), m.rendered_content, websearch_to_tsquery(chat.search_config(), $1))
             FROM chat.messages m WHERE m.id = ANY($2)`,
    };
    const highlight = (search: string, ids: number[]) =>
      bare.query({ ...highlighting, values: [search, ids] });

    console.log(
      `${MESSAGES.toLocaleString('en')} messages in 50 channels, generated in ${generatedSeconds.toFixed(0)} s; ` +
        `the reader sees 10 of them; ${REQUESTS} searches each, one at a time, the newest ${PAGE}`,
    );
    console.log(
      `load average before the searches: ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(', ')}`,
    );
    console.log(
      'search | matches shown | ours p50 / p99 ms | bare `tsquery` (ids) p50 / p99 ms | bare/ours p50 | ' +
        'same-body bare p50 / p99 ms | same-body bare/ours p50 | `ts_headline` of the page p50 ms | ' +
        'CPU ms per search: ours (API + Postgres) | bare `tsquery` (Postgres) | same-body bare (server + Postgres) | ' +
        'bare/ours CPU | same-body bare/ours CPU',
    );
    // CPU time, unlike wall time, does not grow with the other work on a shared machine.
    const serverPid = server.child.pid!;
    const cpu = () => ({
      api: processCpuMs(serverPid),
      sameBody: processCpuMs(sameBodyServer.pid),
      postgres: stack.postgresCpuMs(),
    });
    /** Where two bodies first differ, to tell what the same-body baseline got wrong. */
    const firstDifference = (a: string, b: string) => {
      let i = 0;
      while (i < a.length && a[i] === b[i]) i++;
      return `at ${i}: ours …${a.slice(Math.max(0, i - 80), i + 80)}… same-body bare …${b.slice(Math.max(0, i - 80), i + 80)}…`;
    };
    const cases = [
      ['one word', words[49]!],
      ['phrase', `"${words[9]!} ${words[19]!}"`],
    ] as const;
    for (const [label, search] of cases) {
      const expected = await baseline(search);
      const expectedBody = await ours(search);
      const got = ids(expectedBody);
      if (JSON.stringify(got) !== JSON.stringify(expected))
        throw new Error(
          `${label}: the API answered ${got.length} ids, bare Postgres ${expected.length}, not the same`,
        );
      const bareBody = await sameBody(search);
      if (bareBody !== expectedBody)
        throw new Error(
          `${label}: the same-body baseline answers another body ${firstDifference(expectedBody, bareBody)}`,
        );
      const timings = {
        ours: [] as number[],
        bare: [] as number[],
        sameBody: [] as number[],
        highlight: [] as number[],
      };
      const cpuMs = { api: 0, ours: 0, bare: 0, sameBody: 0 };
      // Alternated, so that all three see the same state of the machine.
      for (let i = 0; i < REQUESTS; i++) {
        let cpuBefore = cpu();
        let started = performance.now();
        const answered = await ours(search);
        timings.ours.push(performance.now() - started);
        let cpuAfter = cpu();
        cpuMs.api += cpuAfter.api - cpuBefore.api;
        cpuMs.ours += cpuAfter.postgres - cpuBefore.postgres;
        cpuBefore = cpu();
        started = performance.now();
        const found = await baseline(search);
        timings.bare.push(performance.now() - started);
        cpuAfter = cpu();
        cpuMs.bare += cpuAfter.postgres - cpuBefore.postgres;
        cpuBefore = cpu();
        started = performance.now();
        const bareAnswered = await sameBody(search);
        timings.sameBody.push(performance.now() - started);
        cpuAfter = cpu();
        cpuMs.sameBody += cpuAfter.sameBody - cpuBefore.sameBody + cpuAfter.postgres - cpuBefore.postgres;
        if (
          JSON.stringify(ids(answered)) !== JSON.stringify(found) ||
          JSON.stringify(found) !== JSON.stringify(expected)
        )
          throw new Error(`${label}: search ${i} answered other ids than bare Postgres`);
        if (answered !== expectedBody || bareAnswered !== expectedBody)
          throw new Error(`${label}: search ${i} answered another body than before`);
        started = performance.now();
        await highlight(search, expected);
        timings.highlight.push(performance.now() - started);
      }
      const o = timings.ours.sort((a, b) => a - b);
      const b = timings.bare.sort((a, b) => a - b);
      const s = timings.sameBody.sort((a, b) => a - b);
      const h = timings.highlight.sort((a, b) => a - b);
      const p50p99 = (sorted: number[]) =>
        `${quantile(sorted, 0.5).toFixed(1)} / ${quantile(sorted, 0.99).toFixed(1)}`;
      console.log(
        [
          `${label} (${search})`,
          expected.length,
          p50p99(o),
          p50p99(b),
          `${ratio(quantile(b, 0.5), quantile(o, 0.5))}× (goal ≥ 0.7×)`,
          p50p99(s),
          `${ratio(quantile(s, 0.5), quantile(o, 0.5))}×`,
          quantile(h, 0.5).toFixed(1),
          `${(cpuMs.api / REQUESTS).toFixed(1)} + ${(cpuMs.ours / REQUESTS).toFixed(1)}`,
          (cpuMs.bare / REQUESTS).toFixed(1),
          (cpuMs.sameBody / REQUESTS).toFixed(1),
          `${ratio(cpuMs.bare, cpuMs.api + cpuMs.ours)}×`,
          `${ratio(cpuMs.sameBody, cpuMs.api + cpuMs.ours)}×`,
        ].join(' | '),
      );
    }
    const sizes = (
      await bare.query<{ index: string; table: string }>(
        `SELECT pg_size_pretty(pg_relation_size('chat.message_search_tsv')) AS index,
                pg_size_pretty(pg_table_size('chat.message_search')) AS table`,
      )
    ).rows[0]!;
    console.log(
      `GIN index chat.message_search_tsv: ${sizes.index}; the vectors (chat.message_search): ${sizes.table}`,
    );
  } finally {
    await bare.end();
    await sameBodyServer.stop();
    await server.stop();
    await stack.stop();
  }
}

/**
 * Writes the messages in batches with the search trigger off, then the vectors in one statement
 * and the index afresh (far faster than a trigger and an index update per row), as migration 1080
 * builds them for existing messages.
 */
async function generate(
  db: pg.Client,
  realmId: number,
  senderId: number,
  channels: number[],
  words: string[],
): Promise<void> {
  await db.query('ALTER TABLE chat.messages DISABLE TRIGGER messages_search_text');
  await db.query('DROP INDEX chat.message_search_tsv');
  const batch = 100_000;
  for (let from = 0; from < MESSAGES; from += batch) {
    const n = Math.min(batch, MESSAGES - from);
    // floor(V ^ random()) draws rank k with probability about 1/k: a few words common, most rare.
    await db.query(
      `INSERT INTO chat.messages (realm_id, sender_id, stream_id, topic, content, rendered_content, date_sent)
       SELECT $1, $2, ($3::int[])[1 + g % cardinality($3::int[])], 'topic ' || (g % 100), body,
              '<p>' || body || '</p>', now() - make_interval(secs => ($6 - g)::float8)
       FROM generate_series($5 + 1, $5 + $7) g,
         LATERAL (SELECT string_agg(($4::text[])[floor(power(cardinality($4::text[]), random()))::int], ' ') AS body
                  FROM generate_series(1, ${WORDS_PER_MESSAGE}) w WHERE g > 0) words`,
      [realmId, senderId, channels, words, from, MESSAGES, n],
    );
  }
  await db.query(
    `INSERT INTO chat.message_search (message_id, tsv)
     SELECT id, chat.message_tsv(chat.search_config(), topic, rendered_content) FROM chat.messages
     ON CONFLICT (message_id) DO NOTHING`,
  );
  // GIN builds in memory far faster than in the default 64 MB of maintenance_work_mem.
  await db.query("SET maintenance_work_mem = '512MB'");
  await db.query('CREATE INDEX message_search_tsv ON chat.message_search USING gin (tsv)');
  await db.query('RESET maintenance_work_mem');
  await db.query('ALTER TABLE chat.messages ENABLE TRIGGER messages_search_text');
  await db.query('ANALYZE chat.messages; ANALYZE chat.message_search');
}

await main();
