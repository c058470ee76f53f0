/**
 * docs/sizing.md from the figures `sizing.ts` measured: the per-operation table, then, on paper,
 * what 1k, 10k and 100k active users under MIX need and what breaks first. Kept apart from the
 * measuring so that the arithmetic and its assumptions read in one place.
 */

export interface OperationCost {
  name: string;
  description: string;
  operations: number;
  seconds: number;
  /** CPU ms per operation of each source, its idle rate taken off. */
  cpuMs: Record<string, number>;
  /** Postgres transaction ids assigned per operation: its write transactions (commits that flush WAL). */
  writeTransactions: number;
  walBytes: number;
  /** Growth of the database's files per operation (8 KiB pages, so a few hundred operations are needed). */
  storedBytes: number;
}

export interface Figures {
  date: string;
  machine: { cores: number; model: string; loadMin: number; loadMax: number; node: string };
  /** Members of the measured channel message (each with a queue). */
  receivers: number;
  idleCpuMsPerSecond: Record<string, number>;
  costs: OperationCost[];
}

/** What one active user does in the busy hour (the assumption every figure below rests on). */
const MIX: Record<string, { perHour: number; why: string }> = {
  login: { perHour: 0.2, why: 'one login in five busy hours (tokens outlive a session)' },
  'GET /users/me': { perHour: 20, why: 'an app start or screen change' },
  list: { perHour: 20, why: 'browsing characters, 50 a page' },
  generation: {
    perHour: 2,
    why: 'two built-in-sized generations (an upstream model costs its own time, not ours)',
  },
  'chat message': { perHour: 6, why: 'six channel messages sent' },
  'event poll': {
    perHour: 120,
    why: 'each user receives 120 messages (20 members of their channels send six each), one poll per message: a poll answered with several counts once, so an upper bound',
  },
  'socket message': { perHour: 10, why: 'ten conversation posts over its WebSocket' },
};
/** Connections each active user holds open all hour: a conversation socket and a long poll. */
const HELD_CONNECTIONS_PER_USER = 2;
const USERS = [1_000, 10_000, 100_000];
/** Planned utilization: a pod or database at this share of its cores still absorbs a burst. */
const TARGET_UTILIZATION = 0.6;
/** One Node process uses one core for JavaScript: a pod is sized at one core. */
const CORES_PER_POD = 1;
/** Held sockets per API pod (channel bench: ~40 KiB each, so ~200 MB beside the ~150 MB idle process). */
const SOCKETS_PER_POD = 5_000;
/** The chart's defaults: `database.poolMax` 10, two replicas of each API. */
const POOL_MAX = 10;
const MIN_API_PODS = 2;
/** Postgres memory per core, as cloud instances come (shared_buffers a quarter of it). */
const POSTGRES_GIB_PER_CORE = 4;
/** Postgres's max_connections default; past it a transaction pooler is needed. */
const POSTGRES_MAX_CONNECTIONS = 100;
/**
 * Write transactions a single Postgres primary on network SSD commits per second comfortably
 * (group commit shares the WAL flushes): an assumption to check on the target disks with pgbench.
 */
const COMMIT_CEILING = 5_000;
/** Hours a day at the busy hour's rate, for what accumulates (the database's growth). */
const BUSY_HOURS_PER_DAY = 8;
/** Temporal history events per built-in generation (README, issue 15: 9 after local activities). */
const HISTORY_EVENTS_PER_GENERATION = 9;

const ceilPowerOfTwo = (n: number) => 2 ** Math.ceil(Math.log2(Math.max(2, n)));
const fixed = (n: number, digits = 2) => n.toFixed(digits);
const thousands = (n: number) => Math.round(n).toLocaleString('en-US');

export function writeGuide(figures: Figures): string {
  const sources = Object.keys(figures.costs[0]!.cpuMs);
  const perSecond = (users: number, name: string) => (users * (MIX[name]?.perHour ?? 0)) / 3600;
  /** Cores (CPU seconds per second) a source spends for `users`. */
  const cores = (users: number, source: string) =>
    figures.costs.reduce((sum, cost) => sum + (perSecond(users, cost.name) * cost.cpuMs[source]!) / 1000, 0);
  const postgresRate = (users: number, field: 'writeTransactions' | 'walBytes' | 'storedBytes') =>
    figures.costs.reduce((sum, cost) => sum + perSecond(users, cost.name) * cost[field], 0);

  const plans = USERS.map((users) => {
    const apiPods = (source: string, sockets: number) =>
      Math.max(
        MIN_API_PODS,
        Math.ceil(cores(users, source) / (CORES_PER_POD * TARGET_UTILIZATION)),
        Math.ceil(sockets / SOCKETS_PER_POD),
      );
    const held = (users * HELD_CONNECTIONS_PER_USER) / 2;
    const content = apiPods('content API', held);
    const chat = apiPods('messaging API', held);
    const worker = Math.max(1, Math.ceil(cores(users, 'worker') / (CORES_PER_POD * TARGET_UTILIZATION)));
    const postgresCores = ceilPowerOfTwo(cores(users, 'Postgres') / TARGET_UTILIZATION);
    // Each process's pool, and its LISTEN connection (the Postgres event bus, the default).
    const connections = (content + chat + worker) * (POOL_MAX + 1);
    const commits = postgresRate(users, 'writeTransactions');
    return {
      users,
      cores: Object.fromEntries(sources.map((source) => [source, cores(users, source)])),
      content,
      chat,
      worker,
      postgresCores,
      connections,
      commits,
      walGiBPerDay: (postgresRate(users, 'walBytes') * 86_400) / 2 ** 30,
      storedGiBPerMonth: (postgresRate(users, 'storedBytes') * 3600 * BUSY_HOURS_PER_DAY * 30) / 2 ** 30,
      workflowsPerSecond: perSecond(users, 'generation'),
      messagesPerSecond: perSecond(users, 'chat message'),
      temporalCores: cores(users, 'Temporal'),
    };
  });

  const costRows = figures.costs.map(
    (cost) =>
      `| ${cost.name} | ${cost.description} | ${cost.operations} | ${sources.map((source) => fixed(cost.cpuMs[source]!)).join(' | ')} | ${fixed(cost.writeTransactions)} | ${fixed(cost.walBytes / 1024, 1)} | ${fixed(cost.storedBytes / 1024, 1)} |`,
  );
  const mixRows = Object.entries(MIX).map(([name, { perHour, why }]) => `| ${name} | ${perHour} | ${why} |`);
  const planRows = [
    `| cores, content API | ${plans.map((p) => fixed(p.cores['content API']!)).join(' | ')} |`,
    `| cores, messaging API | ${plans.map((p) => fixed(p.cores['messaging API']!)).join(' | ')} |`,
    `| cores, worker | ${plans.map((p) => fixed(p.cores.worker!)).join(' | ')} |`,
    `| cores, Postgres | ${plans.map((p) => fixed(p.cores.Postgres!)).join(' | ')} |`,
    `| cores, Temporal (dev server's figure) | ${plans.map((p) => fixed(p.temporalCores)).join(' | ')} |`,
    `| content API pods (1 core each) | ${plans.map((p) => p.content).join(' | ')} |`,
    `| messaging API pods (1 core each) | ${plans.map((p) => p.chat).join(' | ')} |`,
    `| worker pods (1 core each) | ${plans.map((p) => p.worker).join(' | ')} |`,
    `| Postgres instance | ${plans.map((p) => `${p.postgresCores} cores, ${p.postgresCores * POSTGRES_GIB_PER_CORE} GiB`).join(' | ')} |`,
    `| Postgres connections (pods × (pool of ${POOL_MAX} + LISTEN)) | ${plans.map((p) => `${p.connections}${p.connections > POSTGRES_MAX_CONNECTIONS ? ' (pooler)' : ''}`).join(' | ')} |`,
    `| write transactions/s | ${plans.map((p) => thousands(p.commits)).join(' | ')} |`,
    `| WAL per day (at the busy hour's rate) | ${plans.map((p) => `${fixed(p.walGiBPerDay, 1)} GiB`).join(' | ')} |`,
    `| database growth per month (${BUSY_HOURS_PER_DAY} busy hours a day) | ${plans.map((p) => `${fixed(p.storedGiBPerMonth, 1)} GiB`).join(' | ')} |`,
    `| generations (workflows) started/s | ${plans.map((p) => fixed(p.workflowsPerSecond, 1)).join(' | ')} |`,
    `| channel messages/s | ${plans.map((p) => fixed(p.messagesPerSecond, 1)).join(' | ')} |`,
  ];
  const largest = plans.at(-1)!;
  const poll = figures.costs.find((cost) => cost.name === 'event poll');
  const pollShare = Math.round(
    (100 * perSecond(largest.users, 'event poll') * (poll?.writeTransactions ?? 0)) /
      Math.max(largest.commits, 1e-9),
  );
  const commitShare = (plan: (typeof plans)[number]) => Math.round((100 * plan.commits) / COMMIT_CEILING);
  const usersAtCeiling = Math.round((COMMIT_CEILING / plans[0]!.commits) * plans[0]!.users);

  return `# Sizing guide

Generated by \`npm run bench -- sizing\` (\`bench/sizing.ts\`, the arithmetic in \`bench/sizing-guide.ts\`);
do not edit by hand — change the mix or the assumptions there and run it again.

Run of **${figures.date}** on ${figures.machine.cores} cores (${figures.machine.model}), Node ${figures.machine.node},
load average ${fixed(figures.machine.loadMin, 1)}–${fixed(figures.machine.loadMax, 1)} during the run.

## What one operation costs

Each row is N operations against \`muse-server content-api\`, \`chat-api\` and \`worker\`, each a process
of its own, on an embedded Postgres and Temporal's dev server, a few operations in flight at a
time. The CPU time (user + system, from \`/proc\`) each process spent over the phase, less what it
spends idle over as long, divided by N: CPU time rather than rates, because it holds on a shared
machine where rates do not. A busy machine still inflates it (caches are cold more often, and
with a few requests in flight each one pays its own wake-ups): issue 43 measured \`GET /users/me\`
at 0.20 ms of API CPU on a quiet machine at 20 connections (\`bench/auth.ts\`), so read the
figures from a loaded run as an upper bound.

Postgres is every backend and the postmaster; its write transactions are the transaction
ids assigned (each one a commit that flushes WAL), WAL is the bytes written, and stored is
the growth of the database's files. The event poll is
what a receiver costs beyond the send: the same messages sent with every receiver holding a
\`GET /events\`, less the send alone, per answered poll.

Idle, in CPU ms per second: ${Object.entries(figures.idleCpuMsPerSecond)
    .map(([source, ms]) => `${source} ${fixed(ms, 1)}`)
    .join(', ')} (taken off every row).

| operation | what it is | N | ${sources.map((source) => `${source} CPU ms`).join(' | ')} | write transactions | WAL KiB | stored KiB |
|---|---|---|${sources.map(() => '---|').join('')}---|---|---|
${costRows.join('\n')}

## The mix

An *active user* is one using the product in the busy hour, doing:

| operation | per hour | assumed because |
|---|---|---|
${mixRows.join('\n')}

and holding ${HELD_CONNECTIONS_PER_USER} connections open all hour (a conversation WebSocket on the
content API, a long poll on the messaging API). The send was measured at ${figures.receivers}
members; the mix's channels are smaller, so the send's figure is on the safe side.

## On paper: 1k, 10k and 100k active users

| | ${USERS.map((users) => `${thousands(users)} users`).join(' | ')} |
|---|---|---|---|
${planRows.join('\n')}

How each line follows from the table above:

- **Cores** of a part: the sum over the operations of (operations per second) × (its CPU ms).
- **Pods**: the content and messaging APIs at ${TARGET_UTILIZATION * 100} % of one core each (a Node process runs its
  JavaScript on one core; more pods, not more cores per pod), at least ${MIN_API_PODS} (the chart's default, for
  availability), and at most ${thousands(SOCKETS_PER_POD)} held connections each (about 40 KiB per socket in the \`channel\`
  bench, so about 200 MB beside the ~150 MB idle process). The worker likewise, at least one.
- **Postgres**: its cores at ${TARGET_UTILIZATION * 100} %, rounded up to an instance size, with
  ${POSTGRES_GIB_PER_CORE} GiB per core (\`shared_buffers\` a quarter of it). Its disk: the growth of the
  database's files per operation (the table's last column, 8 KiB pages at a time) at ${BUSY_HOURS_PER_DAY} busy hours
  a day, for as long as messages and generations are kept, plus room for the WAL (per day above:
  also what backups and replicas carry). An upper bound: part of the growth is dead rows that
  vacuum reclaims (the polls' acknowledgements, most of their column) and event-log entries,
  which are pruned.
- **Connections**: every pod's pool may open \`database.poolMax\` (${POOL_MAX}), and each holds one LISTEN
  connection (\`MUSE_EVENT_BUS=postgres\`, the default). Past Postgres's default
  \`max_connections\` (${POSTGRES_MAX_CONNECTIONS}) put a transaction pooler in front (PgBouncer;
  \`database.transactionPooler: true\`) rather than raising \`max_connections\` on the primary.
- **Temporal**: the dev server (SQLite, in one process) is what this run measures; a production
  cluster spends its CPU differently (frontend, history, matching, its own database), so read its
  cores as an order of magnitude, and size its database by the workflows started per second.

## What breaks first

1. **Postgres's commit rate.** Every write (a login, a submit, a generation's steps, a message, a
   socket post) is a write transaction on the one primary. The mix needs
   ${thousands(plans[0]!.commits)} / ${thousands(plans[1]!.commits)} / ${thousands(largest.commits)} write transactions per second at
   1k / 10k / 100k users: ${commitShare(plans[0]!)} % / ${commitShare(plans[1]!)} % / ${commitShare(largest)} % of the ${thousands(COMMIT_CEILING)}
   per second assumed for one primary on network SSD (an assumption: measure the target's disks
   with \`pgbench\`), so at this mix the primary's commits run out near ${thousands(usersAtCeiling)} active
   users. The levers: faster WAL storage, and fewer write transactions per operation.
2. **The event log's order.** Every organization's events are appended to one log
   (\`chat.event_log\`) at positions from one sequence, as the writing transaction's last
   statement, and a queue is read up to the *settled* position: the highest below which every
   position has committed. A reader that meets a gap waits for the transaction holding it, so the
   time between a write's append and its commit — the commit's WAL flush — holds back delivery to
   every queue behind that position, in every organization. At ${fixed(largest.messagesPerSecond, 0)} messages per second
   (100k users) a commit that takes 100 ms on a saturated disk delays about ${thousands(largest.messagesPerSecond * 0.1)} messages' delivery;
   the order is global, so organizations cannot be spread over databases without changing it.
   Each answered poll also writes (its queue's acknowledged position): the polls are ${pollShare} % of
   the write transactions above, so the commit rate bounds the event log first, and a client that
   polls less often (one poll answered with several events) relieves both.
3. **Temporal's history shards.** Each generation is a workflow (${HISTORY_EVENTS_PER_GENERATION} history events for a
   built-in one), and a workflow lives on one history shard whose updates are serialized; the shard
   count (\`numHistoryShards\`) is fixed when the cluster is created. At ${fixed(largest.workflowsPerSecond, 1)} workflows per second
   (100k users) that is about ${thousands(largest.workflowsPerSecond * HISTORY_EVENTS_PER_GENERATION)} history events per second, spread over the shards by
   workflow id: choose the shard count for the largest size planned, since changing it means a new
   cluster and moving the workflows (the chart does not run Temporal: \`temporal.address\` points at one).
4. **Held connections** before CPU on the API pods: at 100k users the ${thousands(largest.users * HELD_CONNECTIONS_PER_USER)} open
   sockets and polls set the API pod counts above, not their CPU.
`;
}
