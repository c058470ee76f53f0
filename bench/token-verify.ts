/**
 * HS256 verification of one bearer token, in this process, four ways: jose with a WebCrypto key
 * (the content API before issue 25), jose with a Node KeyObject, fast-jwt (node:crypto), and a
 * bare node:crypto HMAC check (bench/bare.ts, the floor). Rounds alternate; prints verifies per
 * second and CPU microseconds per verify (process-wide, so WebCrypto's thread pool counts too),
 * each as a ratio to the bare check.
 *
 *   node bench/token-verify.ts [verifies per round, default 20000]
 */
import { createSecretKey, randomBytes } from 'node:crypto';
import { createVerifier } from 'fast-jwt';
import { jwtVerify } from 'jose';
import { createTokenSigner } from '@muse/content-api';
import { verifyHs256 } from './bare.ts';

const perRound = Number(process.argv[2] ?? 20_000);
const ROUNDS = 5;
const BATCH = 100; // verifies in flight at once, as under concurrent requests

const secret = randomBytes(32).toString('hex');
const token = await createTokenSigner(secret, 3600).sign({
  id: '11111111-1111-4111-8111-111111111111',
  isActive: true,
  isAdmin: false,
});
const bytes = new TextEncoder().encode(secret);
const keyObject = createSecretKey(bytes);
const cryptoKey = keyObject.toCryptoKey({ name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
const fastJwt = createVerifier({ key: secret, algorithms: ['HS256'], cache: false });
const fastJwtCached = createVerifier({ key: secret, algorithms: ['HS256'], cache: true });

const ways: Record<string, () => unknown> = {
  'node:crypto by hand (floor)': () => {
    if (!verifyHs256(token, keyObject)) throw new Error('refused');
  },
  'fast-jwt': () => fastJwt(token),
  'fast-jwt, its token cache on': () => fastJwtCached(token),
  'jose, Node KeyObject': () => jwtVerify(token, keyObject, { algorithms: ['HS256'] }),
  'jose, WebCrypto CryptoKey (before)': () => jwtVerify(token, cryptoKey, { algorithms: ['HS256'] }),
};

async function round(verify: () => unknown): Promise<{ seconds: number; cpuUs: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let done = 0; done < perRound; done += BATCH) {
    await Promise.all(Array.from({ length: BATCH }, verify));
  }
  const used = process.cpuUsage(cpu);
  return { seconds: (performance.now() - started) / 1000, cpuUs: used.user + used.system };
}

const totals = Object.fromEntries(Object.keys(ways).map((name) => [name, { seconds: 0, cpuUs: 0 }]));
for (const verify of Object.values(ways)) await round(verify); // warm-up (JIT)
for (let i = 0; i < ROUNDS; i++) {
  for (const [name, verify] of Object.entries(ways)) {
    const { seconds, cpuUs } = await round(verify);
    totals[name]!.seconds += seconds;
    totals[name]!.cpuUs += cpuUs;
  }
}

const count = perRound * ROUNDS;
const floor = totals['node:crypto by hand (floor)']!;
console.log(`\nHS256 verify of one token, ${ROUNDS} alternating rounds of ${perRound}, ${BATCH} in flight`);
console.table(
  Object.entries(totals).map(([way, { seconds, cpuUs }]) => ({
    way,
    'verifies/s': Math.round(count / seconds),
    'CPU µs/verify': +(cpuUs / count).toFixed(1),
    'CPU × floor': +(cpuUs / floor.cpuUs).toFixed(2),
  })),
);
