import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '@muse/core';

describe('loadConfig', () => {
  it('applies defaults when nothing is set', () => {
    const config = loadConfig({});
    expect(config.MUSE_CONTENT_PORT).toBe(8080);
    expect(config.MUSE_CHAT_PORT).toBe(8081);
    expect(config.DATABASE_URL).toBeUndefined();
  });

  it('keeps the values the Temporal timeouts had before they were settings', () => {
    expect(loadConfig({})).toMatchObject({
      MUSE_TEMPORAL_CALL_TIMEOUT_MS: 10_000,
      MUSE_DELIVERY_HEARTBEAT_TIMEOUT_MS: 30_000,
      MUSE_CHAT_WEBHOOK_TIMEOUT_SECONDS: 10,
      MUSE_WORKER_STICKY_TIMEOUT_MS: 10_000,
    });
  });

  it('coerces numbers from their text', () => {
    expect(loadConfig({ MUSE_CONTENT_PORT: '9000' }).MUSE_CONTENT_PORT).toBe(9000);
  });

  it('names every wrong variable', () => {
    const attempt = () =>
      loadConfig({ MUSE_CONTENT_PORT: 'abc', DATABASE_URL: 'mysql://x', NODE_ENV: 'prod' });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/MUSE_CONTENT_PORT="abc"/);
    expect(attempt).toThrow(/DATABASE_URL="mysql:\/\/x"/);
    expect(attempt).toThrow(/NODE_ENV="prod"/);
  });

  it('rejects a port out of range', () => {
    expect(() => loadConfig({ MUSE_CHAT_PORT: '70000' })).toThrow(/MUSE_CHAT_PORT/);
  });
});
