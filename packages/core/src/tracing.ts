import type { IncomingHttpHeaders } from 'node:http';
import { context, propagation, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Resource } from '@opentelemetry/resources';

/**
 * OpenTelemetry tracing, off unless the standard variables ask for it: an OTLP endpoint
 * (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), with OTEL_SDK_DISABLED
 * not `true` and OTEL_TRACES_EXPORTER unset or `otlp`. The exporter itself reads the rest
 * (OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, …), the resource OTEL_SERVICE_NAME and
 * OTEL_RESOURCE_ATTRIBUTES. The SDK is loaded only then; off, spans are the API's no-ops.
 *
 * The SDK is the 1.x line because Temporal's interceptors (@temporalio/interceptors-opentelemetry)
 * hand their workflow spans to an exporter of that line.
 */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED === 'true') return false;
  if (env.OTEL_TRACES_EXPORTER && env.OTEL_TRACES_EXPORTER !== 'otlp') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

export interface Tracing {
  /** Where spans go (batched to the OTLP exporter); Temporal's workflow span sink uses it too. */
  processor: SpanProcessor;
  resource: Resource;
  /** Sends what is buffered, then stops. */
  shutdown(): Promise<void>;
}

let started: Tracing | undefined;

/** The process's tracing, once startTracing turned it on. */
export function activeTracing(): Tracing | undefined {
  return started;
}

/**
 * Installs the tracer provider (W3C traceparent propagation, AsyncLocalStorage context) when
 * tracingRequested(); once per process. `service` is the default service.name.
 */
export async function startTracing(service: string): Promise<Tracing | undefined> {
  if (started || !tracingRequested()) return started;
  const [{ NodeTracerProvider }, { BatchSpanProcessor }, { OTLPTraceExporter }, resources] =
    await Promise.all([
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/sdk-trace-base'),
      import('@opentelemetry/exporter-trace-otlp-proto'),
      import('@opentelemetry/resources'),
    ]);
  const resource = new resources.Resource({ 'service.name': service }).merge(
    resources.envDetectorSync.detect(),
  );
  const processor = new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  provider.register();
  started = { processor, resource, shutdown: () => provider.shutdown() };
  return started;
}

const tracer = () => trace.getTracer('muse');

/** `run`, bound to the current trace: work queued now and run later stays in the trace. */
export function inCurrentTrace<T>(run: () => T): () => T {
  return context.bind(context.active(), run);
}

/**
 * Runs `next` inside a SERVER span that continues the caller's W3C `traceparent`, if any. The
 * span is named by the matched route once the answer is sent (`route` is read then).
 */
export function traceRequest(
  request: { method: string; headers: IncomingHttpHeaders },
  response: { statusCode: number; once(event: 'finish' | 'close', listener: () => void): unknown },
  route: () => string,
  next: () => void,
): void {
  const parent = propagation.extract(context.active(), request.headers);
  const span = tracer().startSpan(request.method, { kind: SpanKind.SERVER }, parent);
  span.setAttribute('http.request.method', request.method);
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    const path = route();
    span.updateName(`${request.method} ${path}`);
    span.setAttributes({ 'http.route': path, 'http.response.status_code': response.statusCode });
    if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  };
  response.once('finish', end);
  response.once('close', end);
  context.with(trace.setSpan(parent, span), next);
}

/**
 * A CLIENT span around one outbound call, its `traceparent` written into `headers` so the
 * upstream continues the trace.
 */
export async function traceOutbound<T>(
  method: string,
  url: URL,
  headers: Headers,
  call: () => Promise<T & { status?: number }>,
): Promise<T> {
  return tracer().startActiveSpan(
    `${method} ${url.host}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'http.request.method': method,
        'server.address': url.hostname,
        'url.full': redacted(url),
      },
    },
    async (span: Span) => {
      propagation.inject(context.active(), headers, {
        set: (carrier, key, value) => carrier.set(key, value),
      });
      try {
        const response = await call();
        if (response.status !== undefined) span.setAttribute('http.response.status_code', response.status);
        if ((response.status ?? 0) >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        return response;
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** No query string in spans: it may carry signatures or keys. */
function redacted(url: URL): string {
  return `${url.origin}${url.pathname}`;
}
