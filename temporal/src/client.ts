import { createRequire } from 'node:module';
import { Client, Connection, type WorkflowClientInterceptor } from '@temporalio/client';
import type * as TemporalOpenTelemetry from '@temporalio/interceptors-opentelemetry';
import { activeTracing } from '@muse/core';

const require = createRequire(import.meta.url);

/**
 * A lazily connecting client: API processes start (and answer /readyz with 503) before Temporal
 * is up. With tracing on, a workflow it starts continues the trace of the request that started it.
 */
export function createTemporalClient(address: string, namespace: string): Client {
  return new Client({
    connection: Connection.lazy({ address }),
    namespace,
    interceptors: { workflow: activeTracing() ? [tracingInterceptor()] : [] },
  });
}

/** Loaded only with tracing on: the OpenTelemetry SDK stays out of an untraced API process. */
function tracingInterceptor(): WorkflowClientInterceptor {
  const otel = require('@temporalio/interceptors-opentelemetry') as typeof TemporalOpenTelemetry;
  return new otel.OpenTelemetryWorkflowClientInterceptor();
}
