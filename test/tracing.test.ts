import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@muse/core';
import { createTestUser } from './support/content.ts';
import { startFakeOpenAi } from './support/fakes/openai.ts';
import type { FakeServer } from './support/fakes/server.ts';
import { createGenerator, submit, waitForFile } from './support/generation.ts';
import { startProcessStack, type ProcessStack } from './support/process-stack.ts';
import { startProcess, type MuseProcess } from './support/processes.ts';
import { afterToolsBuild, TOOLS_BUILD_WAIT_MS } from './support/tools.ts';

const buildScript = fileURLToPath(new URL('../tools/otelcol/build.sh', import.meta.url));

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  service: string;
}

/** The spans the Collector's file exporter wrote (OTLP JSON, one export request a line). */
async function spansIn(file: string): Promise<Span[]> {
  const text = existsSync(file) ? await readFile(file, 'utf8') : '';
  const spans: Span[] = [];
  for (const line of text.split('\n').filter(Boolean)) {
    const request = JSON.parse(line) as {
      resourceSpans: {
        resource: { attributes: { key: string; value: { stringValue?: string } }[] };
        scopeSpans: { spans: Omit<Span, 'service'>[] }[];
      }[];
    };
    for (const { resource, scopeSpans } of request.resourceSpans) {
      const service = resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '?';
      for (const scope of scopeSpans) for (const span of scope.spans) spans.push({ ...span, service });
    }
  }
  return spans;
}

/** The tree under `rootParent`, one span a line, indented by depth: `service: name`. */
function tree(spans: Span[], rootParent: string): string[] {
  const lines: string[] = [];
  const walk = (parent: string, depth: number) => {
    for (const span of spans.filter((s) => (s.parentSpanId || '') === parent)) {
      lines.push(`${'  '.repeat(depth)}${span.service}: ${span.name}`);
      walk(span.spanId, depth + 1);
    }
  };
  walk(rootParent, 0);
  return lines;
}

describe(
  'one trace from the HTTP request through the workflow to the upstream (OTLP)',
  { timeout: 600_000 },
  () => {
    let collector: MuseProcess;
    let workdir: string;
    let spansFile: string;
    let openai: FakeServer;
    let stack: ProcessStack;

    beforeAll(async () => {
      // Built by `npm test`'s preflight in the background (tools/otelcol/build.sh, cached by
      // version): wait for it; builds here otherwise.
      await afterToolsBuild([execFileSync('bash', [buildScript, '--path'], { encoding: 'utf8' }).trim()]);
      const binary = execFileSync('bash', [buildScript], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      }).trim();
      workdir = await mkdtemp(path.join(os.tmpdir(), 'muse-otel-'));
      spansFile = path.join(workdir, 'spans.jsonl');
      const port = await freePort();
      const config = path.join(workdir, 'collector.yaml');
      await writeFile(
        config,
        [
          'receivers:',
          '  otlp:',
          '    protocols:',
          '      http:',
          `        endpoint: 127.0.0.1:${port}`,
          'exporters:',
          '  file:',
          `    path: ${spansFile}`,
          '    flush_interval: 100ms',
          'service:',
          '  telemetry:',
          '    metrics:',
          '      level: none',
          '  pipelines:',
          '    traces:',
          '      receivers: [otlp]',
          '      exporters: [file]',
          '',
        ].join('\n'),
      );
      collector = startProcess([binary, '--config', config], {});
      await collector.waitForOutput(/Everything is ready/);
      openai = await startFakeOpenAi('sk-test');
      stack = await startProcessStack({
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
        OTEL_BSP_SCHEDULE_DELAY: '200',
      });
    }, 600_000 + TOOLS_BUILD_WAIT_MS);
    afterAll(async () => {
      await stack?.stop();
      await openai?.close();
      await collector?.stop();
      if (workdir) await rm(workdir, { recursive: true, force: true });
    });

    it('continues the caller’s traceparent into the workflow, its activities and the upstream call', async () => {
      const test = stack.asTestStack();
      const admin = await createTestUser(test, { admin: true });
      const generator = await createGenerator(test, admin, {
        kind: 'image',
        type: 'openai',
        base_cost: 1,
        config: { base_url: openai.url, model: 'fake-model', max_attempts: 1, request_timeout_seconds: 5 },
        secrets: { api_key: 'sk-test' },
      });
      const user = await createTestUser(test, { balance: 5 });
      const traceId = randomBytes(16).toString('hex');
      const callerSpan = randomBytes(8).toString('hex');
      openai.requests.length = 0;
      const answer = await submit(
        test,
        user,
        'images',
        { generator_id: generator, prompt: 'a traced fox' },
        { traceparent: `00-${traceId}-${callerSpan}-01` },
      );
      expect(answer.status).toBe(202);
      expect((await waitForFile(test, user, answer.body.file_ids[0]!, 120_000)).status).toBe('completed');

      // The upstream was called with the trace: same trace id, a span of ours as its parent.
      const upstreamCall = openai.requests.find((request) => request.path === '/v1/images/generations');
      const sent = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(String(upstreamCall?.headers.traceparent));
      expect(sent?.[1]).toBe(traceId);

      let spans: Span[] = [];
      for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(250)) {
        spans = (await spansIn(spansFile)).filter((span) => span.traceId === traceId);
        if (
          spans.some((span) => span.spanId === sent![2]) &&
          spans.some((s) => s.name.startsWith('RunWorkflow'))
        )
          break;
      }
      const lines = tree(spans, callerSpan);
      console.log(`the trace of one generation, as the Collector received it:\n${lines.join('\n')}`);

      // One tree under the caller's span: nothing of this trace hangs elsewhere.
      expect(lines.length).toBe(spans.length);
      const byId = new Map(spans.map((span) => [span.spanId, span]));
      const ancestry = (span: Span): string[] => {
        const names: string[] = [];
        for (let at: Span | undefined = span; at; at = byId.get(at.parentSpanId ?? ''))
          names.unshift(`${at.service}: ${at.name}`);
        return names;
      };
      const client = byId.get(sent![2]!)!;
      expect(ancestry(client)).toEqual([
        'content-api: POST /api/v1/generations/images',
        'content-api: StartWorkflow:generationWorkflow',
        'worker: RunWorkflow:generationWorkflow',
        'worker: StartActivity:submitUpstream',
        'worker: RunActivity:submitUpstream',
        `worker: POST ${new URL(openai.url).host}`,
      ]);
    });
  },
);
