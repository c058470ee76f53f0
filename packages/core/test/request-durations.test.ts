import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createLogger, createServiceApp, listen, metricsRegistryOf } from '@muse/core';
import { REQUEST_DURATION_BOUNDS as BOUNDS, RequestDurations } from '../src/http/request-durations.ts';

/** The histogram as prom-client's own class served it before, and RequestDurations, on two registries. */
function both() {
  const theirs = new Registry();
  const ours = new Registry();
  const histogram = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by method, route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [...BOUNDS],
    registers: [theirs],
  });
  const durations = new RequestDurations(BOUNDS, ours);
  const observe = (method: string, route: string, status: number, seconds: number) => {
    histogram.labels(method, route, String(status)).observe(seconds);
    durations.observe(method, route, status, seconds);
  };
  return { theirs, ours, observe };
}

describe('http_request_duration_seconds (RequestDurations)', () => {
  it("is served exactly as prom-client's Histogram serves the same observations", async () => {
    const { theirs, ours, observe } = both();
    // On each bound (a bucket holds what equals its bound), just past it, below the first, past the last.
    for (const bound of BOUNDS) {
      observe('GET', '/api/v1/users/me', 200, bound);
      observe('GET', '/api/v1/users/me', 200, bound + 1e-9);
    }
    observe('GET', '/api/v1/users/me', 200, 0);
    observe('GET', '/api/v1/users/me', 200, 0.0001);
    observe('POST', '/api/v1/users/:id', 404, 7.5);
    observe('GET', 'unmatched', 500, 0.02);
    observe('GET', '/healthz', 200, 0.003);
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.metrics()).toContain(
      'http_request_duration_seconds_bucket{le="+Inf",method="POST",route="/api/v1/users/:id",status="404"} 1',
    );
  });

  it("labels its lines as prom-client's Histogram does beside a registry's default labels", async () => {
    const { theirs, ours, observe } = both();
    theirs.setDefaultLabels({ service: 'content-api' });
    ours.setDefaultLabels({ service: 'content-api' });
    observe('GET', '/healthz', 200, 0.003);
    observe('GET', '/api/v1/users/me', 401, 0.03);
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  it('starts again from nothing when the registry is reset', async () => {
    const { theirs, ours, observe } = both();
    observe('GET', '/healthz', 200, 0.003);
    theirs.resetMetrics();
    ours.resetMetrics();
    expect(await ours.metrics()).toBe(await theirs.metrics());
    observe('GET', '/healthz', 200, 0.2);
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  it("counts a service app's requests by method, route and status", async () => {
    const app = createServiceApp({
      name: 'durations-test',
      logger: createLogger({ NODE_ENV: 'test', LOG_LEVEL: 'silent' }),
      openapi: {},
      readiness: {},
    });
    const server = await listen(app, {
      host: '127.0.0.1',
      port: 0,
      logger: createLogger({ NODE_ENV: 'test', LOG_LEVEL: 'silent' }),
      shutdownTimeoutMs: 1000,
    });
    try {
      await Promise.all([1, 2, 3].map(() => fetch(`${server.url}/healthz`).then((r) => r.text())));
      await fetch(`${server.url}/nowhere`).then((r) => r.text());
      const text = await metricsRegistryOf(app).metrics();
      // The registry adds its default label (the service) to every line.
      const service = 'service="durations-test"';
      expect(text).toContain(
        `http_request_duration_seconds_count{${service},method="GET",route="/healthz",status="200"} 3`,
      );
      expect(text).toContain(
        `http_request_duration_seconds_count{${service},method="GET",route="unmatched",status="404"} 1`,
      );
      expect(text).toContain(
        `http_request_duration_seconds_bucket{le="+Inf",${service},method="GET",route="/healthz",status="200"} 3`,
      );
    } finally {
      await server.close();
    }
  });
});
