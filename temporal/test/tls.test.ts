import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import http2 from 'node:http2';
import type net from 'node:net';
import { Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ConfigError, createLogger, freePort, loadConfig } from '@muse/core';
import { createTemporalClient, createWorker, temporalSecurity } from '@muse/temporal';
import { createTestDatabase, type TestDatabase } from '@muse/test-support/database';
import { startMuseServer, waitUntilServing } from '@muse/test-support/processes';
import {
  createTestCertificates,
  startTlsTerminator,
  type TestCertificates,
  type TlsTerminator,
} from '@muse/test-support/tls';

/** Ample for a handshake with the terminator on this machine; a refused one never connects. */
const REFUSED_CONNECT_TIMEOUT_MS = 2_000;

let certificates: TestCertificates;
beforeAll(async () => {
  certificates = await createTestCertificates();
});
afterAll(() => certificates.remove());

describe('a Temporal frontend behind a TLS terminator that requires a client certificate', () => {
  let terminator: TlsTerminator;
  let database: TestDatabase;
  beforeAll(async () => {
    terminator = await startTlsTerminator(certificates, inject('temporalAddress'));
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await terminator.close();
    await database.drop();
  });

  /** A process's configuration, as the chart sets it: the private CA, the certificate's name, and `env`. */
  const configWith = (env: Record<string, string>) =>
    loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATABASE_URL: database.url,
      TEMPORAL_ADDRESS: terminator.address,
      TEMPORAL_TASK_QUEUE: `tls-${randomBytes(6).toString('hex')}`,
      TEMPORAL_TLS_CA_FILE: certificates.caFile,
      TEMPORAL_TLS_SERVER_NAME: certificates.serverName,
      ...env,
    });
  const workerOf = (config: ReturnType<typeof loadConfig>) =>
    createWorker({
      address: config.TEMPORAL_ADDRESS!,
      security: temporalSecurity(config),
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueues: [config.TEMPORAL_TASK_QUEUE],
      deps: { config, db: database.db, logger: createLogger(config, 'tls-test'), temporal: clientOf(config) },
      workflowBundle: { codePath: inject('workflowBundlePath') },
    });
  const clientOf = (config: ReturnType<typeof loadConfig>) =>
    createTemporalClient(config.TEMPORAL_ADDRESS!, config.TEMPORAL_NAMESPACE, temporalSecurity(config));

  it('the worker and a client with the certificate run a workflow through it', async () => {
    const config = configWith({
      TEMPORAL_TLS_CERT_FILE: certificates.clientCertFile,
      TEMPORAL_TLS_KEY_FILE: certificates.clientKeyFile,
    });
    const worker = await workerOf(config);
    const running = worker.run();
    const client = clientOf(config);
    try {
      const result = await client.workflow.execute('pingWorkflow', {
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        workflowId: `tls-ping-${randomBytes(4).toString('hex')}`,
        args: ['over mTLS'],
      });
      expect(result.message).toBe('over mTLS');
      expect(terminator.accepted).toBeGreaterThanOrEqual(2);
    } finally {
      worker.shutdown();
      await running;
      await client.connection.close();
    }
  });

  /** `muse-server worker` and `content-api` as the chart runs them: the settings in their environment. */
  const startProcesses = async (env: Record<string, string>) => {
    const port = await freePort();
    const taskQueue = `tls-${randomBytes(6).toString('hex')}`;
    const settings = {
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      DATABASE_URL: database.url,
      TEMPORAL_ADDRESS: terminator.address,
      TEMPORAL_TASK_QUEUE: taskQueue,
      TEMPORAL_TLS_CA_FILE: certificates.caFile,
      TEMPORAL_TLS_SERVER_NAME: certificates.serverName,
      MUSE_WORKER_WORKLOADS: 'generation',
      MUSE_HOST: '127.0.0.1',
      MUSE_CONTENT_PORT: String(port),
      MUSE_JWT_SECRET: randomBytes(32).toString('hex'),
      ...env,
    };
    return {
      taskQueue,
      apiUrl: `http://127.0.0.1:${port}`,
      worker: startMuseServer(['worker'], settings),
      api: startMuseServer(['content-api'], settings),
    };
  };
  const readiness = async (url: string) => {
    const response = await fetch(`${url}/readyz`);
    return {
      status: response.status,
      body: (await response.json()) as { checks: { temporal: { ok: boolean } } },
    };
  };

  it('muse-server worker and content-api connect with the certificate in their settings', async () => {
    const { taskQueue, apiUrl, worker, api } = await startProcesses({
      TEMPORAL_TLS_CERT_FILE: certificates.clientCertFile,
      TEMPORAL_TLS_KEY_FILE: certificates.clientKeyFile,
    });
    const client = clientOf(
      configWith({
        TEMPORAL_TLS_CERT_FILE: certificates.clientCertFile,
        TEMPORAL_TLS_KEY_FILE: certificates.clientKeyFile,
      }),
    );
    try {
      await worker.waitForOutput(/worker running/);
      const result = await client.workflow.execute('pingWorkflow', {
        taskQueue,
        workflowId: `tls-process-${randomBytes(4).toString('hex')}`,
        args: ['from the process'],
      });
      expect(result.message).toBe('from the process');
      await waitUntilServing(apiUrl, api);
      expect(await readiness(apiUrl)).toMatchObject({
        status: 200,
        body: { checks: { temporal: { ok: true } } },
      });
    } finally {
      await client.connection.close();
      await Promise.all([worker.stop(), api.stop()]);
    }
  });

  it('without the certificate, muse-server worker stops and content-api is not ready', async () => {
    const { apiUrl, worker, api } = await startProcesses({});
    try {
      expect(await worker.exited()).not.toBe(0);
      await waitUntilServing(apiUrl, api);
      expect(await readiness(apiUrl)).toMatchObject({
        status: 503,
        body: { checks: { temporal: { ok: false } } },
      });
    } finally {
      await Promise.all([worker.stop(), api.stop()]);
    }
  });

  const refusals: Record<string, () => Record<string, string>> = {
    'no client certificate': () => ({}),
    'a client certificate of another CA': () => ({
      TEMPORAL_TLS_CERT_FILE: certificates.strangerCertFile,
      TEMPORAL_TLS_KEY_FILE: certificates.strangerKeyFile,
    }),
  };
  for (const [what, env] of Object.entries(refusals)) {
    it(`refuses the worker and a client with ${what}`, async () => {
      const config = configWith(env());
      const refusedBefore = terminator.refused;
      await expect(workerOf(config)).rejects.toThrow();
      // The client's connection with its settings' security; a refused handshake is retried until
      // the connect deadline, so a short one (Temporal's default waits 10 s) ends the test sooner.
      const connection = Connection.lazy({
        address: config.TEMPORAL_ADDRESS!,
        ...temporalSecurity(config),
        connectTimeout: REFUSED_CONNECT_TIMEOUT_MS,
      });
      await expect(connection.ensureConnected()).rejects.toThrow();
      await connection.close();
      // Refused by the terminator's handshake, not lost on the way.
      expect(terminator.refused).toBeGreaterThanOrEqual(refusedBefore + 2);
    });
  }
});

describe('an API key (Temporal Cloud)', () => {
  let server: http2.Http2SecureServer;
  const seen: { path: string; authorization: string | undefined }[] = [];
  let address: string;
  beforeAll(async () => {
    // A gRPC endpoint that records who calls and refuses everyone, as a frontend does a wrong key.
    server = http2.createSecureServer({
      key: await readFile(certificates.serverKeyFile),
      cert: await readFile(certificates.serverCertFile),
    });
    server.on('stream', (stream, headers) => {
      seen.push({ path: String(headers[':path']), authorization: headers.authorization });
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () =>
        stream.sendTrailers({ 'grpc-status': '16', 'grpc-message': 'unauthenticated' }),
      );
      stream.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    address = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('is sent as a bearer token by the worker and the clients, over TLS without TEMPORAL_TLS', async () => {
    const config = loadConfig({
      LOG_LEVEL: 'silent',
      TEMPORAL_ADDRESS: address,
      TEMPORAL_TLS_CA_FILE: certificates.caFile,
      TEMPORAL_TLS_SERVER_NAME: certificates.serverName,
      TEMPORAL_API_KEY: 'the-key',
    });
    const security = temporalSecurity(config);
    await expect(
      createWorker({
        address,
        security,
        namespace: 'default',
        taskQueues: ['api-key'],
        deps: {
          config,
          db: undefined as never,
          logger: createLogger(config, 'tls-test'),
          temporal: undefined as never,
        },
        workflowBundle: { codePath: inject('workflowBundlePath') },
      }),
    ).rejects.toThrow();
    const client = createTemporalClient(address, 'default', security);
    await expect(
      client.workflow.start('pingWorkflow', { taskQueue: 'api-key', workflowId: 'api-key', args: ['x'] }),
    ).rejects.toThrow();
    await client.connection.close();
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(new Set(seen.map((call) => call.authorization))).toEqual(new Set(['Bearer the-key']));
    expect(seen.map((call) => call.path)).toContain(
      '/temporal.api.workflowservice.v1.WorkflowService/StartWorkflowExecution',
    );
  });
});

describe('the Temporal connection settings', () => {
  it('refuse a client certificate without its key, naming both', () => {
    expect(() => loadConfig({ TEMPORAL_TLS_CERT_FILE: '/etc/muse/tls.crt' })).toThrow(
      /TEMPORAL_TLS_KEY_FILE.*TEMPORAL_TLS_CERT_FILE/,
    );
  });

  it('stop the start on a file that cannot be read, naming its variable', () => {
    const config = loadConfig({ TEMPORAL_TLS_CA_FILE: '/nonexistent/ca.crt' });
    expect(() => temporalSecurity(config)).toThrow(ConfigError);
    expect(() => temporalSecurity(config)).toThrow(/TEMPORAL_TLS_CA_FILE="\/nonexistent\/ca.crt": ENOENT/);
  });

  it('leave the connection plaintext when none is set, and TLS with the system roots on TEMPORAL_TLS alone', () => {
    expect(temporalSecurity(loadConfig({}))).toEqual({});
    expect(temporalSecurity(loadConfig({ TEMPORAL_TLS: 'true' }))).toEqual({ tls: {} });
  });
});
