/**
 * Unauthenticated upload flood against one `muse-server chat-api` process (issue 38): `--requests`
 * multipart `POST /api/v1/user_uploads` of `--mib` MiB each, all at once, without credentials,
 * each client writing as fast as the server takes its bytes, while a member polls
 * `GET /api/v1/users/me`. Prints how the uploads were answered and how much of their bodies had
 * been sent by then, whether every poll was answered, and the process's RSS against the
 * documented cap (packages/chat-api/README.md, "Request bodies").
 *
 *   node bench/upload-flood.ts [--requests 50] [--mib 40]
 */
import { once } from 'node:events';
import { request, type IncomingMessage } from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createChatUser, createOrganization } from '@muse/chat-api';
import { basic } from './chat-client.ts';
import { freePort, rssBytes, startBenchStack, startProcess } from './lib.ts';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '50' },
    mib: { type: 'string', default: '40' },
  },
});
const requests = Number(values.requests);
const bodyBytes = Number(values.mib) * 2 ** 20;
/** The documented cap: what a flood of unauthenticated bodies may add to the process's RSS. */
const CAP_MB = 96;
const serverMain = fileURLToPath(new URL('../packages/server/src/main.ts', import.meta.url));
const mb = (bytes: number) => bytes / 2 ** 20;

const stack = await startBenchStack();
await createOrganization(stack.db, { subdomain: '', name: 'Bench' });
const member = await createChatUser(stack.db, {
  subdomain: '',
  email: 'member@example.com',
  fullName: 'Member',
  role: 400,
});
const port = await freePort();
const server = await startProcess(
  [serverMain, 'chat-api'],
  { ...stack.serverEnv, MUSE_CHAT_PORT: String(port) },
  port,
  180_000,
);
const pid = server.child.pid!;
const url = `http://127.0.0.1:${port}`;
const memberHeaders = basic(member.delivery_email, member.api_key);

/**
 * One stranger's upload: a file part's head, then filler until `bodyBytes`, written only as fast
 * as the server reads; stops at the answer. Its status and the body bytes sent by then.
 */
async function strangerUpload(): Promise<{ status: string; sent: number }> {
  const boundary = 'flood-boundary';
  const req = request(`${url}/api/v1/user_uploads`, {
    method: 'POST',
    headers: {
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(bodyBytes),
    },
  });
  let answered = false;
  const response = new Promise<IncomingMessage | Error>((resolve) => {
    req.once('response', resolve);
    req.once('error', resolve);
  }).then((outcome) => ((answered = true), outcome));
  let sent = 0;
  const write = async (chunk: Buffer) => {
    sent += chunk.length;
    if (!req.write(chunk)) await Promise.race([once(req, 'drain'), response]);
  };
  await write(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    ),
  );
  const filler = Buffer.alloc(256 * 1024, 'x');
  while (!answered && sent < bodyBytes)
    await write(filler.subarray(0, Math.min(filler.length, bodyBytes - sent)));
  if (!answered) req.end();
  const outcome = await response;
  const sentWhenAnswered = sent;
  req.destroy();
  if (outcome instanceof Error) return { status: `error ${(outcome as NodeJS.ErrnoException).code}`, sent };
  outcome.resume();
  return { status: String(outcome.statusCode), sent: sentWhenAnswered };
}

/** Polls /users/me as the member until `stop`; every answer's status and latency. */
function poll(stop: { done: boolean }) {
  const answers: { status: number; ms: number }[] = [];
  const run = async () => {
    while (!stop.done) {
      const started = performance.now();
      const status = await fetch(`${url}/api/v1/users/me`, {
        headers: memberHeaders,
        signal: AbortSignal.timeout(10_000),
      }).then(
        (response) => response.status,
        () => 0,
      );
      answers.push({ status, ms: performance.now() - started });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  return { answers, running: run() };
}

const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.99)] ?? 0;

try {
  await fetch(`${url}/api/v1/users/me`, { headers: memberHeaders });
  const idleRss = mb(rssBytes(pid));
  const stop = { done: false };
  const polling = poll(stop);
  let peakRss = idleRss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, mb(rssBytes(pid)))), 50);
  const started = performance.now();
  const uploads = await Promise.all(Array.from({ length: requests }, strangerUpload));
  const floodSeconds = (performance.now() - started) / 1000;
  // A few more polls after the flood, so that one answered meanwhile is not the only one counted.
  while (polling.answers.length < 5) await new Promise((resolve) => setTimeout(resolve, 20));
  stop.done = true;
  await polling.running;
  clearInterval(sampler);

  const offered = (requests * bodyBytes) / 2 ** 20;
  const sent = uploads.reduce((sum, u) => sum + u.sent, 0) / 2 ** 20;
  console.log(
    `\nupload flood: ${requests} unauthenticated ${values.mib} MiB multipart uploads at once in ${floodSeconds.toFixed(1)} s; ` +
      `${sent.toFixed(0)} of ${offered.toFixed(0)} MiB sent by the time they were answered`,
  );
  const outcomes = new Map<string, number>();
  for (const u of uploads) outcomes.set(u.status, (outcomes.get(u.status) ?? 0) + 1);
  console.table([...outcomes].map(([outcome, count]) => ({ outcome, count })));
  const answered = polling.answers.filter((a) => a.status === 200).length;
  console.log(
    `member's /users/me polls: ${polling.answers.length}, answered 200: ${answered} (${answered === polling.answers.length ? 'every poll' : 'NOT every poll'}), ` +
      `p99 ${p99(polling.answers.map((a) => a.ms)).toFixed(1)} ms, max ${Math.max(...polling.answers.map((a) => a.ms)).toFixed(1)} ms`,
  );
  console.log(
    `chat-api RSS: idle ${idleRss.toFixed(0)} MB, peak ${peakRss.toFixed(0)} MB, growth ${(peakRss - idleRss).toFixed(0)} MB (documented cap ${CAP_MB} MB: ${peakRss - idleRss <= CAP_MB ? 'within' : 'over'})`,
  );
  if (answered !== polling.answers.length) process.exitCode = 1;
} finally {
  await server.stop();
  await stack.stop();
}
