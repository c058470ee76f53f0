import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Client, Connection, type TLSConfig, type WorkflowClientInterceptor } from '@temporalio/client';
import type * as TemporalOpenTelemetry from '@temporalio/interceptors-opentelemetry';
import { activeTracing, ConfigError, type Config } from '@muse/core';

const require = createRequire(import.meta.url);

/**
 * How a process reaches Temporal beyond its address: TLS (a private CA, a server name), a client
 * certificate (mTLS), an API key. The worker's and the API's connections take the same one.
 */
export interface TemporalSecurity {
  tls?: TLSConfig;
  apiKey?: string;
}

type TemporalSettings = Pick<
  Config,
  | 'TEMPORAL_TLS'
  | 'TEMPORAL_TLS_CA_FILE'
  | 'TEMPORAL_TLS_SERVER_NAME'
  | 'TEMPORAL_TLS_CERT_FILE'
  | 'TEMPORAL_TLS_KEY_FILE'
  | 'TEMPORAL_API_KEY'
>;

/**
 * The TEMPORAL_TLS_* and TEMPORAL_API_KEY settings as connection options, the files read now: a
 * missing or unreadable file stops the start naming its variable. A rotated certificate (as
 * cert-manager renews them) is read by the next start of the process.
 */
export function temporalSecurity(config: TemporalSettings): TemporalSecurity {
  const file = (name: keyof TemporalSettings): Buffer | undefined => {
    const filePath = config[name];
    if (typeof filePath !== 'string') return undefined;
    try {
      return readFileSync(filePath);
    } catch (error) {
      throw new ConfigError(`${name}=${JSON.stringify(filePath)}: ${(error as Error).message}`);
    }
  };
  const ca = file('TEMPORAL_TLS_CA_FILE');
  const crt = file('TEMPORAL_TLS_CERT_FILE');
  const key = file('TEMPORAL_TLS_KEY_FILE');
  const serverName = config.TEMPORAL_TLS_SERVER_NAME;
  const apiKey = config.TEMPORAL_API_KEY;
  if (!(config.TEMPORAL_TLS || ca || crt || serverName || apiKey)) return {};
  const tls: TLSConfig = {
    ...(ca ? { serverRootCACertificate: ca } : {}),
    ...(serverName ? { serverNameOverride: serverName } : {}),
    ...(crt && key ? { clientCertPair: { crt, key } } : {}),
  };
  return { tls, ...(apiKey ? { apiKey } : {}) };
}

/**
 * A lazily connecting client: API processes start (and answer /readyz with 503) before Temporal
 * is up. With tracing on, a workflow it starts continues the trace of the request that started it.
 */
export function createTemporalClient(
  address: string,
  namespace: string,
  security: TemporalSecurity = {},
): Client {
  return new Client({
    connection: Connection.lazy({ address, ...security }),
    namespace,
    interceptors: { workflow: activeTracing() ? [tracingInterceptor()] : [] },
  });
}

/** Loaded only with tracing on: the OpenTelemetry SDK stays out of an untraced API process. */
function tracingInterceptor(): WorkflowClientInterceptor {
  const otel = require('@temporalio/interceptors-opentelemetry') as typeof TemporalOpenTelemetry;
  return new otel.OpenTelemetryWorkflowClientInterceptor();
}
