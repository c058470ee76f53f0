import type { RequestListener } from 'node:http';
import express, { type Express, type Request, type Response } from 'express';
import type { Registry } from 'prom-client';
import type { Logger } from '../logger.ts';
import { createMetricsRegistry } from '../metrics.ts';
import { activeTracing, traceRequest } from '../tracing.ts';
import { referenceDocs } from './docs.ts';
import { writeJsonLeanly } from './json-answer.ts';
import { nameRequest, requestLog } from './request-id.ts';
import { REQUEST_DURATION_BOUNDS, RequestDurations } from './request-durations.ts';

/** A named dependency check for /readyz; it throws (or rejects) when the dependency is unreachable. */
export type ReadinessCheck = () => Promise<void>;

export interface ServiceAppOptions {
  name: string;
  logger: Logger;
  /** The service's OpenAPI document, served as /openapi.json and rendered at /docs. */
  openapi: object;
  /** Where the service serves an AsyncAPI document, rendered at /docs/asyncapi. */
  asyncapi?: string;
  readiness: Record<string, ReadinessCheck>;
  /** MUSE_TRUST_PROXY: which peers' X-Forwarded-For names the client (see config.ts). */
  trustProxy?: string;
}

const READINESS_TIMEOUT_MS = 2000;
/** The paths of the reference pages (referenceDocs), in any letter case as the router matches them. */
const DOCS = /^\/docs(\/|$)/i;

/** The two stateful dependencies every Muse process needs: Postgres and Temporal. */
export function platformReadiness(deps: {
  db: { query(sql: string): Promise<unknown> };
  temporal: {
    connection: {
      workflowService: { getSystemInfo(request: object): Promise<unknown> };
      withDeadline<T>(deadline: number, call: () => Promise<T>): Promise<T>;
    };
  };
}): Record<string, ReadinessCheck> {
  const { connection } = deps.temporal;
  return {
    database: async () => void (await deps.db.query('SELECT 1')),
    // With a deadline the client's retries of an unreachable server stop with the probe, instead
    // of going on for ~20 s behind each answered probe.
    temporal: async () =>
      void (await connection.withDeadline(Date.now() + READINESS_TIMEOUT_MS, () =>
        connection.workflowService.getSystemInfo({}),
      )),
  };
}

const registries = new WeakMap<Express, Registry>();

/** The metrics an app made by createServiceApp collects, for its metrics listener (serveMetrics). */
export function metricsRegistryOf(app: Express): Registry {
  const registry = registries.get(app);
  if (!registry) throw new Error('not an app made by createServiceApp');
  return registry;
}

const closers = new WeakMap<Express, (() => Promise<void>)[]>();

/** Work an app finishes before its process exits (e.g. handing over queued jobs); see closeApp. */
export function onAppClose(app: Express, close: () => Promise<void>): void {
  closers.set(app, [...(closers.get(app) ?? []), close]);
}

/** Runs what the app registered with onAppClose: after its server stopped taking requests. */
export async function closeApp(app: Express): Promise<void> {
  for (const close of closers.get(app) ?? []) await close();
}

/** `GET /metrics` alone: served on its own port, so the API ports never expose it. */
export function metricsHandler(registry: Registry): RequestListener {
  return (req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  };
}

/**
 * The parts every Muse API shares: liveness, readiness, its OpenAPI document, request timing
 * (metricsRegistryOf), and request ids (X-Request-Id, logged with every line). The service mounts
 * its own routes on the returned app.
 */
export function createServiceApp({
  name,
  logger,
  openapi,
  asyncapi,
  readiness,
  trustProxy = 'false',
}: ServiceAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  writeJsonLeanly(app);
  // Trusting every peer would let any client pick its own address and escape per-address limits.
  app.set('trust proxy', trustProxySetting(trustProxy));

  const registry = createMetricsRegistry(name);
  registries.set(app, registry);
  const duration = new RequestDurations(REQUEST_DURATION_BOUNDS, registry);

  if (activeTracing()) app.use((req, res, next) => traceRequest(req, res, () => routeLabel(req), next));
  const timeRequest = requestTiming(duration, logger);
  // One layer, not one per concern: each layer is another step of Express's router per request.
  app.use((req, res, next) => {
    nameRequest(req, res, logger);
    timeRequest(req, res);
    next();
  });

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  app.get('/readyz', async (_req, res) => {
    const results = await Promise.all(
      Object.entries(readiness).map(async ([dependency, check]) => {
        try {
          await withTimeout(check(), READINESS_TIMEOUT_MS);
          return [dependency, { ok: true }] as const;
        } catch (error) {
          return [
            dependency,
            { ok: false, reason: error instanceof Error ? error.message : String(error) },
          ] as const;
        }
      }),
    );
    const ready = results.every(([, result]) => result.ok);
    res
      .status(ready ? 200 : 503)
      .json({ status: ready ? 'ready' : 'unavailable', checks: Object.fromEntries(results) });
  });

  app.get('/openapi.json', (_req, res) => {
    res.json(openapi);
  });
  // The root names where to read about the API: a browser is sent to the reference page.
  app.get('/', (req, res) => {
    if (req.accepts(['json', 'html']) === 'html') return void res.redirect(302, '/docs');
    res.json({ reference: '/docs', openapi: '/openapi.json', ...(asyncapi ? { asyncapi } : {}) });
  });
  const info = (openapi as { info?: { title?: string } }).info;
  const docs = referenceDocs(`${info?.title ?? name} — API reference`, asyncapi ? { asyncapi } : {});
  // Its pages are all below /docs: other requests skip its router, which would pass them on only
  // at the event loop's next turn.
  app.use((req, res, next) => (DOCS.test(req.path) ? docs(req, res, next) : next()));

  return app;
}

/** When a request began (`performance.now()`), kept on its response for the `finish` listener. */
const STARTED = Symbol('request started');
type TimedResponse = Response & { [STARTED]: number };

/**
 * Observes each request's duration (`http_request_duration_seconds`) when its answer is sent, and
 * logs a failed one (5xx), or every one at debug level. Per request this allocates nothing of its
 * own: one listener shared by every response (no closure per request), the start as a number (no
 * `startTimer` closure nor `hrtime` arrays), and the observation itself (RequestDurations).
 */
function requestTiming(duration: RequestDurations, logger: Logger): (req: Request, res: Response) => void {
  function finished(this: TimedResponse) {
    const req = this.req;
    const status = this.statusCode;
    const seconds = (performance.now() - this[STARTED]) / 1000;
    duration.observe(req.method, routeLabel(req), status, seconds);
    const failed = status >= 500;
    if (!failed && !logger.isLevelEnabled('debug')) return;
    const line = { method: req.method, url: req.originalUrl, status, ms: Math.round(seconds * 1000) };
    if (failed) requestLog(this, logger).error(line, 'request failed');
    else requestLog(this, logger).debug(line, 'request completed');
  }
  return (_req, res) => {
    (res as TimedResponse)[STARTED] = performance.now();
    res.on('finish', finished);
  };
}

/** Express reads `true`/`false` and hop counts only as such, not as strings. */
function trustProxySetting(value: string): boolean | number | string {
  if (value === 'true' || value === 'false') return value === 'true';
  return /^\d+$/.test(value) ? Number(value) : value;
}

/** The matched route pattern keeps label cardinality bounded (no ids in labels). */
function routeLabel(req: Request): string {
  const route = req.route as { path?: string } | undefined;
  return route?.path ? `${req.baseUrl}${route.path}` : 'unmatched';
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    promise.then(
      (value) => (clearTimeout(timer), resolve(value)),
      (error: unknown) => (clearTimeout(timer), reject(error)),
    );
  });
}
