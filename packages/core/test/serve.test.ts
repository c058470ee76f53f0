import { describe, expect, it } from 'vitest';
import { createLogger, listen } from '@muse/core';

const logger = createLogger({ NODE_ENV: 'test', LOG_LEVEL: 'silent' });

describe('listen().close() — graceful shutdown', () => {
  it('lets an in-flight request finish, then refuses new connections', async () => {
    let started!: () => void;
    const requestStarted = new Promise<void>((resolve) => (started = resolve));
    const server = await listen(
      (_req, res) => {
        started();
        setTimeout(() => res.end('done'), 300);
      },
      { host: '127.0.0.1', port: 0, logger, shutdownTimeoutMs: 5000 },
    );
    const inFlight = fetch(server.url).then((r) => r.text());
    await requestStarted;
    const closed = server.close();
    expect(await inFlight).toBe('done');
    await closed;
    await expect(fetch(server.url)).rejects.toThrow();
  });

  it('cuts a request that outlives the shutdown timeout', async () => {
    const server = await listen(() => {}, { host: '127.0.0.1', port: 0, logger, shutdownTimeoutMs: 100 });
    const hanging = fetch(server.url);
    await new Promise((r) => setTimeout(r, 50));
    await server.close();
    await expect(hanging).rejects.toThrow();
  });
});
