import { fileURLToPath } from 'node:url';
import { freePort, load, printResults, startBare, startProcess } from './lib.ts';

/**
 * GET /healthz of the content API (the full middleware stack: metrics, auth resolver,
 * OpenAPI validator) next to a bare node:http server answering the same body, each in its
 * own process, driven the same way in the same run.
 */
/** The middleware stack may cost at most half of what a bare server does on the lightest request. */
const TARGET_RATIO = 0.5;

const server = fileURLToPath(new URL('../packages/server/src/main.ts', import.meta.url));

const contentPort = await freePort();
const content = await startProcess(
  [server, 'content-api'],
  {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    MUSE_HOST: '127.0.0.1',
    MUSE_CONTENT_PORT: String(contentPort),
    // /healthz touches neither; both connect lazily.
    DATABASE_URL: 'postgres://bench:bench@127.0.0.1:1/bench',
    TEMPORAL_ADDRESS: '127.0.0.1:1',
    MUSE_JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
  },
  contentPort,
);
const baseline = await startBare('health');

try {
  await load('warm-up', `http://127.0.0.1:${contentPort}/healthz`, { duration: 2 });
  const results = [
    await load('content API /healthz', `http://127.0.0.1:${contentPort}/healthz`),
    await load('bare node:http', `${baseline.url}/healthz`),
  ];
  printResults('GET /healthz — content API vs bare node:http (20 connections, 5 s each)', results);
  const ratio = results[0]!.requestsPerSecond / results[1]!.requestsPerSecond;
  const met = ratio >= TARGET_RATIO ? 'met' : 'not met';
  console.log(`ratio content/bare: ${ratio.toFixed(2)}   target ≥ ${TARGET_RATIO.toFixed(2)}: ${met}`);
} finally {
  await content.stop();
  await baseline.stop();
}
