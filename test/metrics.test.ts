import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { QueryTypes } from 'sequelize';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatUser, createOrganization } from '@muse/chat-api';
import { createTestUser } from './support/content.ts';
import { startFakeOpenAi } from './support/fakes/openai.ts';
import type { FakeServer } from './support/fakes/server.ts';
import { createGenerator, submit, waitForFile } from './support/generation.ts';
import { startProcessStack, type ProcessStack } from './support/process-stack.ts';
import { dashboardQueries, exposedNames, metricNames, templateQueryMetricNames } from './support/promql.ts';

const chartFile = (name: string) => new URL(`../charts/muse/files/${name}`, import.meta.url);

/** Every query of the chart's dashboard and alerts, with where it is. */
async function chartQueries(): Promise<{ where: string; names: string[] }[]> {
  const dashboard = JSON.parse(await readFile(chartFile('grafana-dashboard.json'), 'utf8')) as unknown;
  const rules = parseYaml(await readFile(chartFile('prometheus-rules.yaml'), 'utf8')) as {
    groups: { name: string; rules: { alert: string; expr: string }[] }[];
  };
  return [
    ...dashboardQueries(dashboard).map(({ where, expr, template }) => ({
      where: `dashboard ${where}`,
      names: template ? templateQueryMetricNames(expr) : metricNames(expr),
    })),
    ...rules.groups.flatMap((group) =>
      group.rules.map((rule) => ({ where: `alert ${rule.alert}`, names: metricNames(rule.expr) })),
    ),
  ];
}

describe('the chart dashboard and alerts name only metrics the processes serve', { timeout: 600_000 }, () => {
  let stack: ProcessStack;
  let openai: FakeServer;

  beforeAll(async () => {
    openai = await startFakeOpenAi('sk-test');
    stack = await startProcessStack({ MUSE_OUTBOUND_ALLOW: '127.0.0.1' });
  }, 600_000);
  afterAll(async () => {
    await stack?.stop();
    await openai?.close();
  });

  /** A bit of everything the dashboard shows: requests, generations (one refunded), a scheduled message. */
  async function workload(): Promise<void> {
    const test = stack.asTestStack();
    const admin = await createTestUser(test, { admin: true });
    const generator = await createGenerator(test, admin, {
      kind: 'image',
      type: 'openai',
      base_cost: 2,
      config: { base_url: openai.url, model: 'fake-model', max_attempts: 1, request_timeout_seconds: 5 },
      secrets: { api_key: 'sk-test' },
    });
    const user = await createTestUser(test, { balance: 10 });
    const generate = async () => {
      const answer = await submit(test, user, 'images', { generator_id: generator, prompt: 'a fox' });
      expect(answer.status).toBe(202);
      return waitForFile(test, user, answer.body.file_ids[0]!, 120_000);
    };
    expect((await generate()).status).toBe('completed');
    openai.script('reject');
    expect((await generate()).status).toBe('failed');
    // 404s and 401s count in the HTTP error panels too.
    await fetch(`${stack.contentUrl}/api/v1/files/00000000-0000-4000-8000-00000000dead`);

    await createOrganization(stack.database.db, { subdomain: '', name: 'Metrics' });
    const sender = await createChatUser(stack.database.db, {
      subdomain: '',
      email: 'sender@example.com',
      fullName: 'Sender',
      password: 'secret-password',
      role: 400,
    });
    const form = new URLSearchParams({
      type: 'direct',
      to: JSON.stringify([sender.id]),
      content: 'later',
      scheduled_delivery_timestamp: String(Math.ceil(Date.now() / 1000) + 2),
    });
    const scheduled = await fetch(`${stack.chatUrl}/api/v1/scheduled_messages`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`sender@example.com:${sender.api_key}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: form,
    });
    expect(scheduled.status).toBe(200);
    const { scheduled_message_id: id } = (await scheduled.json()) as { scheduled_message_id: number };
    for (const deadline = Date.now() + 120_000; Date.now() < deadline; await sleep(200)) {
      const [row] = await stack.database.db.query<{ delivered_at: Date | null }>(
        'SELECT delivered_at FROM chat.scheduled_messages WHERE id = :id',
        { replacements: { id }, type: QueryTypes.SELECT },
      );
      if (row?.delivered_at) return;
    }
    throw new Error('the scheduled message was not delivered');
  }

  it('after a workload, every dashboard panel and alert expression names a metric some /metrics serves', async () => {
    await workload();
    const served = new Set<string>();
    for (const [process, url] of Object.entries(stack.metricsUrls)) {
      const response = await fetch(`${url}/metrics`);
      expect(response.status, process).toBe(200);
      for (const name of exposedNames(await response.text())) served.add(name);
    }
    const queries = await chartQueries();
    expect(queries.length).toBeGreaterThan(15);
    const missing = queries.flatMap(({ where, names }) =>
      names.filter((name) => !served.has(name)).map((name) => `${where}: ${name}`),
    );
    expect(missing).toEqual([]);
    // The workload's own marks: a completed and a failed (refunded) task, the upstream's rejection.
    expect(served).toContain('muse_generation_refunds_total');
    expect(served).toContain('muse_scheduled_message_lateness_seconds_bucket');
  });
});
