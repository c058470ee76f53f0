import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTemporalClient } from '@muse/temporal';
import { createContentApp } from '@muse/content-api';
import { listen } from '@muse/core';
import { startTestStack, type TestStack } from './support/stack.ts';

describe('operational endpoints of both APIs', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(() => stack.stop());

  for (const api of ['content', 'chat'] as const) {
    const url = () => (api === 'content' ? stack.contentUrl : stack.chatUrl);

    it(`${api}: /healthz answers 200`, async () => {
      const response = await fetch(`${url()}/healthz`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: 'ok' });
    });

    it(`${api}: /readyz answers 200 when Postgres and Temporal are reachable`, async () => {
      const response = await fetch(`${url()}/readyz`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({
        status: 'ready',
        checks: { database: { ok: true }, temporal: { ok: true } },
      });
    });

    it(`${api}: /metrics is served on the metrics port only, in the Prometheus text format`, async () => {
      await fetch(`${url()}/healthz`);
      expect((await fetch(`${url()}/metrics`)).status).toBe(404);
      const metricsUrl = api === 'content' ? stack.contentMetricsUrl : stack.chatMetricsUrl;
      expect((await fetch(`${metricsUrl}/healthz`)).status).toBe(404);
      const response = await fetch(`${metricsUrl}/metrics`);
      expect(response.headers.get('content-type')).toMatch(/text\/plain/);
      const text = await response.text();
      expect(text).toMatch(/http_request_duration_seconds_count\{[^}]*route="\/healthz"/);
      expect(text).toContain('process_cpu_user_seconds_total');
    });

    it(`${api}: /openapi.json is an OpenAPI 3.1 document`, async () => {
      const document = (await (await fetch(`${url()}/openapi.json`)).json()) as {
        openapi: string;
        paths: object;
      };
      expect(document.openapi).toBe('3.1.0');
      expect(document.paths).toHaveProperty('/healthz');
    });
  }

  it('content: /readyz answers 503 with a reason when Temporal is unreachable', async () => {
    const temporal = createTemporalClient('127.0.0.1:1', 'default');
    // The connection closes once every probe has ended: a gRPC retry timer that fires after
    // close() throws from the timer ("Channel has been shut down").
    const probes: Promise<unknown>[] = [];
    const withDeadline = temporal.connection.withDeadline.bind(temporal.connection);
    temporal.connection.withDeadline = (deadline, call) => {
      const probe = withDeadline(deadline, call);
      probes.push(probe.catch(() => {}));
      return probe;
    };
    const app = createContentApp({ ...stack, db: stack.database.db, temporal });
    const server = await listen(app, {
      host: '127.0.0.1',
      port: 0,
      logger: stack.logger,
      shutdownTimeoutMs: 100,
    });
    try {
      const response = await fetch(`${server.url}/readyz`);
      expect(response.status).toBe(503);
      const body = (await response.json()) as {
        status: string;
        checks: Record<string, { ok: boolean; reason?: string }>;
      };
      expect(body.status).toBe('unavailable');
      expect(body.checks.database).toEqual({ ok: true });
      expect(body.checks.temporal?.ok).toBe(false);
      expect(body.checks.temporal?.reason).toBeTruthy();
    } finally {
      await server.close();
      await Promise.all(probes);
      await temporal.connection.close();
    }
  });

  it('content: an unknown path answers 404 with the error body', async () => {
    const response = await fetch(`${stack.contentUrl}/api/v1/nothing-here`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: 'not_found' });
  });
});
