/**
 * The multipart part of CI's fuzz step (.ci/fuzz.sh): hostile request bodies against a running
 * API — many parts, huge fields and files, bad boundaries and encodings, cut-off and endless
 * chunked bodies — unauthenticated and with the given credentials, `--rounds` times over, 20 at a
 * time. Fails when any answer is a 5xx, when the process (its pid, found by its port) restarts or
 * stops answering /healthz, or when its RSS grows past the documented cap (96 MB: the messaging
 * API's README and the content service's, "Request bodies").
 *
 *   node .ci/fuzz-bodies.ts --api chat --url http://127.0.0.1:18081 --auth 'Basic …' --pid 1234
 *   node .ci/fuzz-bodies.ts --api content --url http://127.0.0.1:18080 --auth 'Bearer …' --pid 1233
 */
import { readFileSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { once } from 'node:events';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    api: { type: 'string' },
    url: { type: 'string' },
    auth: { type: 'string' },
    pid: { type: 'string' },
    rounds: { type: 'string', default: '3' },
  },
});
const base = values.url!;
const pid = Number(values.pid);
const owner = values.auth!;
/** The documented cap on what hostile bodies may add to the messaging API's RSS. */
const CAP_MB = 96;
const MIB = 2 ** 20;
const B = 'fuzz-boundary';

const rssMb = () => {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
  return Number(line![1]) / 1024;
};

interface Case {
  name: string;
  method?: string;
  path: string;
  type?: string;
  /** The body's start, then `filler` bytes up to `total` (streamed as fast as the server reads). */
  head: Buffer | string;
  total?: number;
  /** No Content-Length: chunked. */
  chunked?: boolean;
  /** Declares more than is sent, then hangs up. */
  cut?: boolean;
}

const part = (name: string, value: string, filename?: string) =>
  `--${B}\r\nContent-Disposition: form-data; name="${name}"${filename === undefined ? '' : `; filename="${filename}"`}\r\n\r\n${value}\r\n`;
const multipart = `multipart/form-data; boundary=${B}`;
const chatCases: Case[] = [
  {
    name: '10,000 tiny fields',
    path: '/api/v1/messages',
    head: Array.from({ length: 10_000 }, (_, i) => part(`f${i}`, 'v')).join('') + `--${B}--\r\n`,
  },
  {
    name: '60 MiB field',
    path: '/api/v1/messages',
    head: `--${B}\r\nContent-Disposition: form-data; name="content"\r\n\r\n`,
    total: 60 * MIB,
  },
  {
    name: '40 MiB file',
    path: '/api/v1/user_uploads',
    head: part('file', '', 'big.bin').slice(0, -2),
    total: 40 * MIB,
  },
  {
    name: 'chunked endless file',
    path: '/api/v1/user_uploads',
    head: part('file', '', 'x.bin').slice(0, -2),
    total: 64 * MIB,
    chunked: true,
  },
  {
    name: 'many file parts',
    path: '/api/v1/user_uploads',
    head:
      Array.from({ length: 500 }, (_, i) => part(`f${i}`, 'x'.repeat(1000), `f${i}.txt`)).join('') +
      `--${B}--\r\n`,
  },
  {
    name: 'file where none is taken',
    path: '/api/v1/settings',
    method: 'PATCH',
    head: part('file', 'x', 'x.txt') + `--${B}--\r\n`,
  },
  { name: 'unknown path, 40 MiB', path: '/api/v1/nothing/here', head: part('a', 'b'), total: 40 * MIB },
  { name: 'no boundary', path: '/api/v1/messages', type: 'multipart/form-data', head: 'garbage' },
  {
    name: 'wrong boundary',
    path: '/api/v1/messages',
    head: '--other\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n--other--\r\n',
  },
  {
    name: 'unterminated part',
    path: '/api/v1/messages',
    head: `--${B}\r\nContent-Disposition: form-data; name="a"\r\n\r\nb`,
  },
  {
    name: 'header flood',
    path: '/api/v1/messages',
    head: `--${B}\r\n` + 'X-A: b\r\n'.repeat(20_000) + '\r\nv\r\n',
  },
  {
    name: 'invalid UTF-8 filename',
    path: '/api/v1/user_uploads',
    head: Buffer.concat([
      Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="f"; filename="`),
      Buffer.from([0xff, 0xfe, 0xc3]),
      Buffer.from(`"\r\n\r\nx\r\n--${B}--\r\n`),
    ]),
  },
  {
    name: 'RFC 5987 filename, bad escapes',
    path: '/api/v1/user_uploads',
    head: `--${B}\r\nContent-Disposition: form-data; name="f"; filename*=UTF-8''%ZZ%E0%A4\r\n\r\nx\r\n--${B}--\r\n`,
  },
  {
    name: 'invalid UTF-8 field',
    path: '/api/v1/messages',
    head: Buffer.concat([
      Buffer.from(part('content', '').slice(0, -2)),
      Buffer.from([0xc3, 0x28, 0xa0, 0xa1]),
      Buffer.from(`\r\n--${B}--\r\n`),
    ]),
  },
  {
    name: 'urlencoded bad escapes',
    path: '/api/v1/messages',
    type: 'application/x-www-form-urlencoded',
    head: 'type=%ZZ&to=%&content=%E0%A4%A&topic=%FF',
  },
  {
    name: 'urlencoded 5,000 fields',
    path: '/api/v1/messages',
    type: 'application/x-www-form-urlencoded',
    head: Array.from({ length: 5000 }, (_, i) => `f${i}=v`).join('&'),
  },
  {
    name: 'urlencoded 40 MiB',
    path: '/api/v1/messages',
    type: 'application/x-www-form-urlencoded',
    head: 'content=',
    total: 40 * MIB,
  },
  {
    name: 'cut off',
    path: '/api/v1/user_uploads',
    head: part('file', '', 'c.bin').slice(0, -2),
    total: 8 * MIB,
    cut: true,
  },
  {
    name: 'unsupported charset',
    path: '/api/v1/messages',
    type: 'application/x-www-form-urlencoded; charset=klingon',
    head: 'a=b',
  },
  { name: 'download, bad escapes', method: 'GET', path: '/user_uploads/1/%/%25/%ZZ%E0', head: '' },
];

const contentCases: Case[] = [
  {
    name: '40 MiB file',
    path: '/api/v1/files',
    head: part('file', '', 'big.bin').slice(0, -2),
    total: 40 * MIB,
  },
  {
    name: 'chunked endless file',
    path: '/api/v1/files',
    head: part('file', '', 'x.bin').slice(0, -2),
    total: 64 * MIB,
    chunked: true,
  },
  {
    name: '10,000 tiny fields',
    path: '/api/v1/files',
    head:
      Array.from({ length: 10_000 }, (_, i) => part(`f${i}`, 'v')).join('') +
      part('file', 'x', 'x.txt') +
      `--${B}--\r\n`,
  },
  {
    name: 'huge field',
    path: '/api/v1/files',
    head: `--${B}\r\nContent-Disposition: form-data; name="name"\r\n\r\n`,
    total: 30 * MIB,
    chunked: true,
  },
  {
    name: 'many file parts',
    path: '/api/v1/files',
    head:
      Array.from({ length: 500 }, (_, i) => part('file', 'x'.repeat(1000), `f${i}.txt`)).join('') +
      `--${B}--\r\n`,
  },
  { name: 'no boundary', path: '/api/v1/files', type: 'multipart/form-data', head: 'garbage' },
  {
    name: 'unterminated part',
    path: '/api/v1/files',
    head: `--${B}\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nb`,
  },
  {
    name: 'invalid UTF-8 filename',
    path: '/api/v1/files',
    head: Buffer.concat([
      Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="file"; filename="`),
      Buffer.from([0xff, 0xfe, 0xc3]),
      Buffer.from(`"\r\n\r\nx\r\n--${B}--\r\n`),
    ]),
  },
  {
    name: 'cut off',
    path: '/api/v1/files',
    head: part('file', '', 'c.bin').slice(0, -2),
    total: 8 * MIB,
    cut: true,
  },
  {
    name: 'JSON 40 MiB',
    method: 'PATCH',
    path: '/api/v1/users/me',
    type: 'application/json',
    head: '{"nickname":"',
    total: 40 * MIB,
  },
  {
    name: 'JSON chunked 40 MiB',
    method: 'PATCH',
    path: '/api/v1/users/me',
    type: 'application/json',
    head: '{"nickname":"',
    total: 40 * MIB,
    chunked: true,
  },
  {
    name: 'JSON invalid UTF-8',
    method: 'PATCH',
    path: '/api/v1/users/me',
    type: 'application/json',
    head: Buffer.concat([Buffer.from('{"nickname":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}')]),
  },
  {
    name: 'JSON deep nesting',
    method: 'PATCH',
    path: '/api/v1/users/me',
    type: 'application/json',
    head: '['.repeat(100_000),
  },
  {
    name: 'multipart to a JSON route',
    method: 'PATCH',
    path: '/api/v1/users/me',
    head: part('nickname', 'x'),
    total: 40 * MIB,
  },
  {
    name: 'unknown path, 40 MiB',
    path: '/api/v1/nothing/here',
    type: 'application/json',
    head: '{"a":"',
    total: 40 * MIB,
  },
];
const cases = values.api === 'content' ? contentCases : chatCases;

/** Sends one case; its status, or the error that ended it when the server cut the body off. */
async function send(c: Case, authorization?: string): Promise<string> {
  const head = Buffer.isBuffer(c.head) ? c.head : Buffer.from(c.head);
  const total = Math.max(c.total ?? 0, head.length);
  const req = request(`${base}${c.path}`, {
    method: c.method ?? 'POST',
    headers: {
      ...(head.length ? { 'content-type': c.type ?? multipart } : {}),
      ...(c.chunked ? {} : { 'content-length': String(c.cut ? total + MIB : total) }),
      ...(authorization ? { authorization } : {}),
    },
  });
  let answered = false;
  const outcome = new Promise<IncomingMessage | Error>((resolve) => {
    req.once('response', resolve);
    req.once('error', resolve);
  }).then((o) => ((answered = true), o));
  let sent = 0;
  const write = async (chunk: Buffer) => {
    sent += chunk.length;
    if (!req.write(chunk)) await Promise.race([once(req, 'drain'), outcome]);
  };
  if (head.length) await write(head);
  const filler = Buffer.alloc(256 * 1024, 'a');
  while (!answered && sent < total) await write(filler.subarray(0, Math.min(filler.length, total - sent)));
  if (c.cut) req.destroy();
  else if (!answered) req.end();
  const result = await outcome;
  if (result instanceof Error) return c.cut ? 'cut' : `error ${(result as NodeJS.ErrnoException).code}`;
  result.resume();
  req.destroy();
  return String(result.statusCode);
}

const idle = rssMb();
let peak = idle;
const sampler = setInterval(() => (peak = Math.max(peak, rssMb())), 50);
const outcomes = new Map<string, number>();
const failures: string[] = [];
const jobs = Array.from({ length: Number(values.rounds) }, () =>
  cases.flatMap((c) => [
    { c, auth: undefined },
    { c, auth: owner },
  ]),
).flat();
let next = 0;
await Promise.all(
  Array.from({ length: 20 }, async () => {
    while (next < jobs.length) {
      const { c, auth } = jobs[next++]!;
      const status = await send(c, auth);
      const key = `${c.name} (${auth ? 'owner' : 'stranger'}): ${status}`;
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
      if (/^5/.test(status) || status.startsWith('error')) failures.push(key);
    }
  }),
);
clearInterval(sampler);
const health = await fetch(`${base}/healthz`).then(
  (r) => r.status,
  () => 0,
);
const alive = (() => {
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8').length > 0;
  } catch {
    return false;
  }
})();
for (const [key, count] of [...outcomes].sort()) console.log(`  ${key} ×${count}`);
const growth = peak - idle;
console.log(
  `hostile bodies, ${values.api} API: ${jobs.length} requests; the same process ${alive ? 'still up' : 'GONE'}, /healthz ${health}; ` +
    `RSS idle ${idle.toFixed(0)} MB, peak ${peak.toFixed(0)} MB, growth ${growth.toFixed(0)} MB (cap ${CAP_MB} MB)`,
);
if (failures.length) console.log(`FAILED: ${[...new Set(failures)].join('; ')}`);
process.exit(failures.length || !alive || health !== 200 || growth > CAP_MB ? 1 : 0);
