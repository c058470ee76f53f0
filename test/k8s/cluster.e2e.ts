/**
 * The chart on a real node (tools/k8s/node.sh): `helm install` of the image, then the platform
 * used through its NodePort Services as a client would. Run by `.ci/k8s.sh` (root, daemons),
 * which starts the node, builds and loads the image, and tears everything down afterwards.
 *
 * Postgres, Temporal, the fake S3 store and the webhook code receiver run on this machine's
 * loopback; a relay on the node's bridge address makes each reachable from the pods (the chart
 * keeps Postgres and Temporal external). Temporal's is a TLS terminator that requires a client
 * certificate: the pods reach it through the chart's `temporal.tls` values and a Secret.
 *
 * Last, a second install with `evaluation.enabled=true`: its own Postgres and Temporal in the
 * release (images from tools/k8s/evaluation-images.sh), nothing external but S3 and the code webhook.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import tls from 'node:tls';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '@temporalio/client';
import { startFakeS3, type FakeS3 } from '../support/fakes/s3.ts';
import { startWebhookReceiver, type CodeReceiver } from '../support/fakes/code-receivers.ts';
import { FrameChecker, wsClient, type Frame } from '../support/sockets.ts';
import {
  createTestCertificates,
  startTlsTerminator,
  type TestCertificates,
  type TlsTerminator,
} from '../support/tls.ts';
import { startLocalServices } from '../../tools/k8s/local-services.ts';
import { answers200, eventually } from '../../tools/k8s/poll.ts';

const run = promisify(execFile);
const NODE_IP = process.env.MUSE_K8S_NODE_IP ?? '10.245.0.1';
const CLUSTER_PKI = process.env.MUSE_K8S_PKI ?? '/run/muse-k8s/pki'; // tools/k8s/node.sh's CA
const KUBECONFIG = required('KUBECONFIG');
const IMAGE = required('MUSE_K8S_IMAGE'); // repository:tag, loaded into the node
const NEXT_TAG = required('MUSE_K8S_NEXT_TAG'); // the same image under another tag, for upgrades
const NAMESPACE = 'muse-e2e';
const EVAL_NAMESPACE = 'muse-eval';
/** Where the evaluation install's claims are bound (hostPath volumes; the node has no provisioner). */
const EVAL_VOLUMES = '/var/lib/muse-k8s/evaluation-volumes'; // under tools/k8s/node.sh's DATA: gone with `down`
const RELEASE = 'muse';
const BUILTIN_IMAGE_GENERATOR = '00000000-0000-4000-8000-000000000001';
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run this suite through .ci/k8s.sh`);
  return value;
}

async function kubectlIn(namespace: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('kubectl', ['--kubeconfig', KUBECONFIG, '-n', namespace, ...args], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}
const kubectl = (...args: string[]) => kubectlIn(NAMESPACE, ...args);

async function helmIn(namespace: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('helm', ['--kubeconfig', KUBECONFIG, '-n', namespace, ...args], {
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}
const helm = (...args: string[]) => helmIn(NAMESPACE, ...args);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- kubectl's JSON, read field by field
async function kubeJsonIn(namespace: string, ...args: string[]): Promise<any> {
  return JSON.parse(await kubectlIn(namespace, ...args, '-o', 'json'));
}
const kubeJson = (...args: string[]) => kubeJsonIn(NAMESPACE, ...args);

/**
 * Listens on the node's address and pipes each connection to a loopback port; with `tls`, it
 * terminates TLS first (code providers' webhooks must be https in production).
 */
async function relay(
  port: number,
  tlsOptions?: tls.TlsOptions,
): Promise<{ address: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const pipe = (incoming: net.Socket) => {
    const outgoing = net.connect(port, '127.0.0.1');
    for (const socket of [incoming, outgoing]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        incoming.destroy();
        outgoing.destroy();
      });
    }
    incoming.pipe(outgoing).pipe(incoming);
  };
  const server = tlsOptions ? tls.createServer(tlsOptions, pipe) : net.createServer(pipe);
  await new Promise<void>((resolve) => server.listen(0, NODE_IP, resolve));
  const { port: relayPort } = server.address() as net.AddressInfo;
  return {
    address: `${NODE_IP}:${relayPort}`,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A certificate for the node's address signed by the cluster's CA, which every pod with a service
 * account token already has (ca.crt beside the token): the pods trust the webhook relay through
 * NODE_EXTRA_CA_CERTS without a file of the test's own in the image.
 */
async function nodeCertificate(dir: string): Promise<tls.TlsOptions> {
  const [key, csr, cert] = ['relay.key', 'relay.csr', 'relay.crt'].map((name) => path.join(dir, name)) as [
    string,
    string,
    string,
  ];
  const san = path.join(dir, 'relay.ext');
  await writeFile(san, `subjectAltName=IP:${NODE_IP}`);
  await run('openssl', [
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=muse-e2e-relay',
    '-keyout',
    key,
    '-out',
    csr,
  ]);
  await run('openssl', [
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    `${CLUSTER_PKI}/ca.crt`,
    '-CAkey',
    `${CLUSTER_PKI}/ca.key`,
    '-CAcreateserial',
    '-CAserial',
    path.join(dir, 'ca.srl'),
    '-days',
    '1',
    '-extfile',
    san,
    '-out',
    cert,
  ]);
  return { key: await readFile(key), cert: await readFile(cert) };
}

interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the APIs' JSON, read field by field
  body: any;
}

async function call(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> {
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text,
  };
}

/**
 * One image by the built-in generator, submitted (202), waited for until `timeoutMs`, completed as a
 * PNG and downloaded (200, PNG bytes): what the install's API, Temporal, worker and storage do together.
 */
async function generatedImage(
  url: string,
  headers: Record<string, string>,
  prompt: string,
  { what, timeoutMs }: { what: string; timeoutMs: number },
) {
  const submitted = await call(`${url}/api/v1/generations/images`, {
    method: 'POST',
    headers,
    body: { generator_id: BUILTIN_IMAGE_GENERATOR, prompt, count: 1 },
  });
  expect(submitted.status, JSON.stringify(submitted.body)).toBe(202);
  const [fileId] = submitted.body.file_ids as string[];
  const file = await eventually(
    what,
    async () => {
      const { body } = await call(`${url}/api/v1/files/${fileId}`, { headers });
      return body.status === 'completed' || body.status === 'failed' ? body : undefined;
    },
    { timeoutMs },
  );
  expect(file).toMatchObject({ status: 'completed', content_type: 'image/png' });
  const content = await fetch(new URL(file.download_url, url));
  expect(content.status).toBe(200);
  const bytes = Buffer.from(await content.arrayBuffer());
  expect(bytes.subarray(0, 8)).toEqual(PNG_SIGNATURE);
  return { fileId: fileId!, file, bytes };
}

/** A Zulip API call with the form encoding and basic auth real clients use. */
async function zulip(
  url: string,
  method: 'GET' | 'POST',
  route: string,
  user: { email: string; apiKey: string },
  params: Record<string, unknown> = {},
): Promise<Answer> {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    form.set(key, typeof value === 'string' ? value : JSON.stringify(value));
  const query = method === 'GET' && [...form].length ? `?${form}` : '';
  const response = await fetch(`${url}/api/v1${route}${query}`, {
    method,
    headers: {
      authorization: `Basic ${Buffer.from(`${user.email}:${user.apiKey}`).toString('base64')}`,
      ...(method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
    },
    ...(method === 'POST' ? { body: form.toString() } : {}),
    signal: AbortSignal.timeout(90_000),
  });
  return { status: response.status, body: await response.json() };
}

function randomPhone(): string {
  return `13${String(Math.floor(Math.random() * 1e9)).padStart(9, '0')}`;
}

describe('the chart on a real Kubernetes node', () => {
  const stops: (() => Promise<unknown>)[] = [];
  let workDir: string;
  let database: pg.Pool;
  let receiver: CodeReceiver;
  let s3: FakeS3;
  let contentUrl: string;
  let chatUrl: string;
  let valuesFile: string;
  let certificates: TestCertificates;
  let temporalTerminator: TlsTerminator;
  let s3Values: Record<string, unknown>;
  const codeSecret = randomBytes(16).toString('hex');

  /** A Secret as the chart's `temporal.tls.existingSecret` reads it: the CA and a client's certificate and key. */
  const temporalTlsSecret = (name: string, certFile: string, keyFile: string) =>
    kubectl(
      'create',
      'secret',
      'generic',
      name,
      `--from-file=ca.crt=${certificates.caFile}`,
      `--from-file=tls.crt=${certFile}`,
      `--from-file=tls.key=${keyFile}`,
    );

  /** A new user, through the operator's webhook code provider, on the content API at `url`. */
  async function login(
    url = contentUrl,
  ): Promise<{ token: string; id: string; headers: Record<string, string> }> {
    const phone = randomPhone();
    const requested = await call(`${url}/api/v1/auth/verification-code?phone_number=${phone}&code_type=sms`);
    expect(requested.status, JSON.stringify(requested.body)).toBe(204);
    const code = receiver.codeFor(phone);
    expect(code).toMatch(/^\d+$/);
    const exchanged = await call(`${url}/api/v1/auth/token`, {
      method: 'POST',
      body: { phone, verification_code: code, source: 'k8s-e2e' },
    });
    expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
    const token = exchanged.body.token as string;
    const me = await call(`${url}/api/v1/users/me`, { headers: { authorization: `Bearer ${token}` } });
    return { token, id: me.body.id as string, headers: { authorization: `Bearer ${token}` } };
  }

  beforeAll(async () => {
    workDir = await mkdtemp(path.join(os.tmpdir(), 'muse-k8s-e2e-'));
    const services = await startLocalServices(workDir, 'k8s-e2e');
    stops.push(services.stop);
    const s3Credentials = {
      bucket: 'muse',
      accessKeyId: 'muse-e2e',
      secretAccessKey: randomBytes(16).toString('hex'),
      region: 'us-east-1',
    };
    s3 = await startFakeS3(s3Credentials);
    stops.push(() => s3.close());
    receiver = await startWebhookReceiver(codeSecret);
    stops.push(() => receiver.close());
    database = new pg.Pool({ connectionString: services.databaseUrl });
    stops.push(() => database.end());

    const portOf = (url: string) => Number(new URL(url.includes('://') ? url : `tcp://${url}`).port);
    const relays = await Promise.all([
      ...[services.databaseUrl, s3.url].map((url) => relay(portOf(url))),
      relay(portOf(receiver.url), await nodeCertificate(workDir)),
    ]);
    for (const r of relays) stops.push(r.close);
    const [pgRelay, s3Relay, receiverRelay] = relays as [
      (typeof relays)[0],
      (typeof relays)[0],
      (typeof relays)[0],
    ];
    receiverUrl = `https://${receiverRelay.address}/`;
    // Temporal behind mTLS: a private CA, a server certificate for a name the pods are told to
    // expect, and the client certificate they get from a Secret (as cert-manager would make it).
    certificates = await createTestCertificates('temporal.muse-e2e.test');
    stops.push(() => certificates.remove());
    temporalTerminator = await startTlsTerminator(certificates, services.temporalAddress, NODE_IP);
    stops.push(() => temporalTerminator.close());

    const [repository, tag] = IMAGE.split(':') as [string, string];
    s3Values = {
      enabled: true,
      endpoint: `http://${s3Relay.address}`,
      bucket: s3Credentials.bucket,
      region: s3Credentials.region,
      accessKeyId: s3Credentials.accessKeyId,
      secretAccessKey: s3Credentials.secretAccessKey,
    };
    valuesFile = path.join(workDir, 'values.json');
    await writeFile(
      valuesFile,
      JSON.stringify({
        image: { repository, tag, pullPolicy: 'Never' },
        database: { url: services.databaseUrl.replace(/@127\.0\.0\.1:\d+/, `@${pgRelay.address}`) },
        temporal: {
          address: temporalTerminator.address,
          taskQueue: 'muse-e2e',
          tls: { enabled: true, serverName: certificates.serverName, existingSecret: 'temporal-tls' },
        },
        auth: { generateJwtSecret: true, secretsKey: randomBytes(32).toString('base64') },
        s3: s3Values,
        // The node's address is private: the outbound policy refuses it unless allowed.
        config: {
          outboundAllow: [NODE_IP],
          chatDefaultRealm: 'acme',
          logLevel: 'warn',
          extraEnv: [
            { name: 'NODE_EXTRA_CA_CERTS', value: '/var/run/secrets/kubernetes.io/serviceaccount/ca.crt' },
          ],
        },
        serviceAccount: { automountServiceAccountToken: true },
        // Two content-api replicas (the WebSocket crosses them); one of the others, to spare the CPU.
        contentApi: { service: { type: 'NodePort' } },
        chatApi: { replicaCount: 1, service: { type: 'NodePort' } },
        operator: { replicaCount: 1 },
      }),
    );
    await run('kubectl', ['--kubeconfig', KUBECONFIG, 'create', 'namespace', NAMESPACE]);
    await temporalTlsSecret('temporal-tls', certificates.clientCertFile, certificates.clientKeyFile);
  });

  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    await rm(workDir, { recursive: true, force: true });
  });

  let receiverUrl: string;
  let installSeconds: number;

  it('helm install: the migration Job completes and every Deployment is Ready', async () => {
    const started = Date.now();
    await helm(
      'install',
      RELEASE,
      'charts/muse',
      '-f',
      valuesFile,
      '--wait',
      '--wait-for-jobs',
      '--timeout',
      '10m',
    );
    installSeconds = (Date.now() - started) / 1000;
    console.log(`helm install → all pods Ready: ${installSeconds.toFixed(1)} s`);
    const jobs = await kubeJson('get', 'jobs');
    expect(jobs.items.map((job: { status: { succeeded?: number } }) => job.status.succeeded)).toEqual([1]);
    const deployments = await kubeJson('get', 'deployments');
    expect(deployments.items.map((d: { metadata: { name: string } }) => d.metadata.name).sort()).toEqual([
      'muse-chat-api',
      'muse-content-api',
      'muse-operator',
      'muse-worker',
    ]);
    for (const deployment of deployments.items) {
      expect(deployment.status.readyReplicas, deployment.metadata.name).toBe(deployment.spec.replicas);
    }
    const services = await kubeJson('get', 'services');
    const nodePort = (name: string) =>
      services.items.find((s: { metadata: { name: string } }) => s.metadata.name === name).spec.ports[0]
        .nodePort as number;
    contentUrl = `http://${NODE_IP}:${nodePort('muse-content-api')}`;
    chatUrl = `http://${NODE_IP}:${nodePort('muse-chat-api')}`;
    // helm's --wait sees the pods Ready; kube-proxy writes the Services' rules after that, on its
    // own sync, so a NodePort refuses connections for a moment (seen in CI). Wait for it as a
    // client would, then hold it to answering.
    for (const url of [contentUrl, chatUrl])
      await eventually(`${url} through its NodePort`, () => answers200(`${url}/readyz`), {
        timeoutMs: 60_000,
      });
    expect((await call(`${contentUrl}/readyz`)).status).toBe(200);
    // Container start → Ready (its /readyz probe passing), per API pod, in the kubelet's seconds.
    const pods = await kubeJson('get', 'pods', '-l', 'app.kubernetes.io/component in (content-api,chat-api)');
    const startToReady = pods.items.map(
      (pod: {
        status: {
          containerStatuses: { state: { running: { startedAt: string } } }[];
          conditions: { type: string; lastTransitionTime: string }[];
        };
      }) => {
        const started = Date.parse(pod.status.containerStatuses[0]!.state.running.startedAt);
        const ready = Date.parse(pod.status.conditions.find((c) => c.type === 'Ready')!.lastTransitionTime);
        return (ready - started) / 1000;
      },
    );
    console.log(`API containers, start → Ready: ${startToReady.join(' s, ')} s`);
  });

  it('the operator in the cluster makes a VerificationCodeProvider, and a user logs in with a code it delivered', async () => {
    await kubectl(
      'create',
      'secret',
      'generic',
      'sms-gateway',
      `--from-literal=signing-secret=${codeSecret}`,
    );
    await applyResource({
      apiVersion: 'muse.dev/v1alpha1',
      kind: 'VerificationCodeProvider',
      metadata: { name: 'sms-gateway' },
      spec: {
        type: 'webhook',
        priority: 10,
        config: { url: receiverUrl },
        secrets: { signing_secret: { secretKeyRef: { name: 'sms-gateway', key: 'signing-secret' } } },
      },
    });
    await readyCondition('verificationcodeprovider', 'sms-gateway');
    const user = await login();
    expect(user.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('the operator makes a Generator with a Ready condition; generation with the built-in generator completes and downloads', async () => {
    await applyResource({
      apiVersion: 'muse.dev/v1alpha1',
      kind: 'Generator',
      metadata: { name: 'studio-images' },
      spec: {
        displayName: 'Studio images',
        kind: 'image',
        type: 'openai',
        baseCost: 5,
        config: { base_url: `http://${NODE_IP}:9/v1`, model: 'gpt-image-1' },
        apiKey: { secretKeyRef: { name: 'sms-gateway', key: 'signing-secret' } },
      },
    });
    await readyCondition('generator', 'studio-images');

    const user = await login();
    await database.query('UPDATE content.users SET balance = 10 WHERE id = $1', [user.id]);
    const { file, bytes } = await generatedImage(contentUrl, user.headers, 'a fox on a real node', {
      what: 'the generated file',
      timeoutMs: 120_000,
    });
    expect(bytes.length).toBe(file.size);
  });

  it("the pods reach Temporal only through a terminator that requires a client certificate (the chart's temporal.tls values); without one a client is refused", async () => {
    // The generation above ran on the worker: its connection, and the APIs', went through the
    // terminator with the client certificate of the `temporal-tls` Secret.
    expect(temporalTerminator.accepted).toBeGreaterThan(0);
    const ca = await readFile(certificates.caFile);
    const connectionWith = (pair?: { crt: Buffer; key: Buffer }) =>
      Connection.lazy({
        address: temporalTerminator.address,
        tls: {
          serverNameOverride: certificates.serverName,
          serverRootCACertificate: ca,
          ...(pair ? { clientCertPair: pair } : {}),
        },
        // Refused at the handshake: the client waits this long for a channel that never opens.
        connectTimeout: pair === trusted ? 30_000 : 3_000,
      });
    const trusted = {
      crt: await readFile(certificates.clientCertFile),
      key: await readFile(certificates.clientKeyFile),
    };
    const stranger = {
      crt: await readFile(certificates.strangerCertFile),
      key: await readFile(certificates.strangerKeyFile),
    };
    const refusedBefore = temporalTerminator.refused;
    for (const pair of [undefined, stranger]) {
      const refused = connectionWith(pair);
      try {
        await expect(refused.ensureConnected()).rejects.toThrow();
      } finally {
        // Closed, or its channel keeps retrying (and being refused) in the background.
        await refused.close();
      }
    }
    // Refused by the terminator's handshake, not lost on the way.
    expect(temporalTerminator.refused).toBeGreaterThanOrEqual(refusedBefore + 2);
    const connection = connectionWith(trusted);
    try {
      await connection.ensureConnected();
      const info = await connection.workflowService.getSystemInfo({});
      expect(info.serverVersion).toBeTruthy();
    } finally {
      await connection.close();
    }
  });

  it("a worker pod of the chart's template given a client certificate of another CA is refused at the handshake", async () => {
    // The worker Deployment's own pod template, its `temporal-tls` volume swapped for a Secret with
    // the right CA but a stranger's certificate; without the Deployment's labels, so no
    // ReplicaSet adopts it.
    await temporalTlsSecret(
      'temporal-tls-stranger',
      certificates.strangerCertFile,
      certificates.strangerKeyFile,
    );
    const { spec } = (await kubeJson('get', 'deployment', `${RELEASE}-worker`)).spec.template;
    const volumes = (spec.volumes as { name: string; secret?: Record<string, unknown> }[]).map((volume) =>
      volume.name === 'temporal-tls'
        ? { ...volume, secret: { ...volume.secret, secretName: 'temporal-tls-stranger' } }
        : volume,
    );
    expect(volumes.some((volume) => volume.secret?.secretName === 'temporal-tls-stranger')).toBe(true);
    // No other client with an untrusted certificate meanwhile: the refusals are the pod's.
    const refusedBefore = temporalTerminator.refused;
    await applyResource({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'worker-with-a-stranger-certificate' },
      spec: { ...spec, volumes, restartPolicy: 'Never' },
    });
    try {
      // Its worker refused, and exited for it (restartPolicy Never: the pod fails).
      const pod = await eventually(
        'the terminator refuses the pod, and its worker exits',
        async () => {
          const current = await kubeJson('get', 'pod', 'worker-with-a-stranger-certificate');
          return temporalTerminator.refused > refusedBefore && current.status.phase === 'Failed'
            ? current
            : undefined;
        },
        { timeoutMs: 300_000 },
      );
      const log = await kubectl('logs', 'worker-with-a-stranger-certificate', '--tail=3').catch(String);
      console.log(
        `worker with a stranger's certificate: ${temporalTerminator.refused - refusedBefore} handshakes refused, pod ${pod.status.phase}; last log lines:\n${log}`,
      );
      expect(pod.status.containerStatuses[0].state.terminated.exitCode).not.toBe(0);
    } finally {
      await kubectl('delete', 'pod', 'worker-with-a-stranger-certificate', '--wait=true', '--timeout=120s');
    }
  });

  it('a conversation WebSocket message posted on one content-api replica reaches a socket on the other', async () => {
    // Each replica by its pod address (the node routes to the pod network), not through the Service.
    const pods = (await kubeJson('get', 'pods', '-l', 'app.kubernetes.io/component=content-api')).items;
    const [urlA, urlB] = pods.map((pod: { status: { podIP: string } }) => `http://${pod.status.podIP}:8080`);
    expect(new Set([urlA, urlB]).size).toBe(2);
    const user = await login();
    const created = await call(`${contentUrl}/api/v1/conversations`, {
      method: 'POST',
      headers: user.headers,
      body: { title: 'Across replicas' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const checker = await FrameChecker.load(urlA);
    const [onA, onB] = [urlA, urlB].map((url) => wsClient(url, created.body.id, user.token, checker)) as [
      ReturnType<typeof wsClient>,
      ReturnType<typeof wsClient>,
    ];
    try {
      const isReady = (frame: Frame) => frame.type === 'ready';
      await Promise.all([onA.next(isReady), onB.next(isReady)]);
      onB.send({ type: 'post', content: 'from replica B', client_id: 'k8s-across' });
      const ack = await onB.next((frame) => frame.type === 'ack' && frame.client_id === 'k8s-across');
      const delivered = await onA.next(
        (frame) => frame.type === 'message' && frame.message.id === ack.message_id,
      );
      expect(delivered.message).toMatchObject({ content: 'from replica B', role: 'user' });
      expect(checker.violations).toEqual([]);
    } finally {
      onA.close();
      onB.close();
    }
  });

  it('the operator makes a ChatOrganization; a message sent through the messaging API reaches a long poll', async () => {
    await applyResource({
      apiVersion: 'muse.dev/v1alpha1',
      kind: 'ChatOrganization',
      metadata: { name: 'acme' },
      spec: {
        subdomain: 'acme',
        name: 'Acme',
        owner: { email: 'owner@acme.example', fullName: 'Acme Owner' },
      },
    });
    await readyCondition('chatorganization', 'acme');
    const secret = await kubeJson('get', 'secret', 'acme-owner');
    const owner = {
      email: Buffer.from(secret.data.email, 'base64').toString(),
      apiKey: Buffer.from(secret.data['api-key'], 'base64').toString(),
    };
    const me = await zulip(chatUrl, 'GET', '/users/me', owner);
    expect(me.body.result).toBe('success');
    const queue = await zulip(chatUrl, 'POST', '/register', owner, { event_types: ['message'] });
    expect(queue.body.result).toBe('success');
    const poll = zulip(chatUrl, 'GET', '/events', owner, {
      queue_id: queue.body.queue_id,
      last_event_id: queue.body.last_event_id,
    });
    await sleep(500);
    const sent = await zulip(chatUrl, 'POST', '/messages', owner, {
      type: 'direct',
      to: [me.body.user_id],
      content: 'hello from a pod',
    });
    expect(sent.body.result, JSON.stringify(sent.body)).toBe('success');
    const events = await poll;
    expect(events.body.events).toContainEqual(
      expect.objectContaining({ type: 'message', message: expect.objectContaining({ id: sent.body.id }) }),
    );
  });

  it(
    `helm upgrade to ${NEXT_TAG} and helm rollback under steady load: no failed request, every generation settled once`,
    async () => {
      for (const [action, args] of [
        ['upgrade', ['upgrade', RELEASE, 'charts/muse', '-f', valuesFile, '--set', `image.tag=${NEXT_TAG}`]],
        ['rollback', ['rollback', RELEASE, '1']],
      ] as const) {
        const user = await login();
        await database.query('UPDATE content.users SET balance = 100000 WHERE id = $1', [user.id]);
        const load = steadyLoad(user.headers);
        const started = Date.now();
        await helm(...args, '--wait', '--timeout', '20m');
        const seconds = (Date.now() - started) / 1000;
        await sleep(2000);
        const figures = await load.stop();
        console.log(
          `helm ${action}: ${seconds.toFixed(1)} s; ${figures.requests} requests (${figures.resent} resent after a connection failure), ${figures.failures.length} failed, ${figures.fileIds.length} generations`,
        );
        expect(figures.failures).toEqual([]);
        await expectSettledOnce(user, figures.fileIds);
      }
    },
    45 * 60_000,
  ); // two rolling updates of every Deployment; a pod takes minutes to start on a loaded machine

  it('kubectl delete pod of the worker mid-generation and of an API pod under load: every accepted generation completes or is refunded once', async () => {
    const user = await login();
    await database.query('UPDATE content.users SET balance = 100000 WHERE id = $1', [user.id]);
    const load = steadyLoad(user.headers);
    await sleep(2000);
    const started = Date.now();
    // A running pod, not one of the rollback's old pods still terminating (gone by the delete).
    const runningPod = async (component: string): Promise<string> => {
      const { items } = await kubeJson('get', 'pods', '-l', `app.kubernetes.io/component=${component}`);
      const pod = items.find(
        (item: { metadata: { deletionTimestamp?: string }; status: { phase: string } }) =>
          !item.metadata.deletionTimestamp && item.status.phase === 'Running',
      );
      expect(pod, `a running ${component} pod`).toBeDefined();
      return pod.metadata.name as string;
    };
    await kubectl('delete', 'pod', await runningPod('worker'), '--wait=false');
    await kubectl('delete', 'pod', await runningPod('content-api'), '--wait=false');
    await eventually(
      'the Deployments Ready again',
      async () => {
        const deployments = await kubeJson('get', 'deployments');
        return (
          deployments.items.every(
            (d: {
              status: { readyReplicas?: number; updatedReplicas?: number };
              spec: { replicas: number };
            }) => d.status.readyReplicas === d.spec.replicas,
          ) || undefined
        );
      },
      { timeoutMs: 600_000 },
    );
    const recovered = (Date.now() - started) / 1000;
    await sleep(2000);
    const figures = await load.stop();
    console.log(
      `pod kills: ready again in ${recovered.toFixed(1)} s; ${figures.requests} requests (${figures.resent} resent after a connection failure), ${figures.failures.length} failed (${figures.failures.slice(0, 5).join('; ')}), ${figures.fileIds.length} generations`,
    );
    await expectSettledOnce(user, figures.fileIds);
  });

  // After the rollback: a rollback to a revision from before a rotation brings the old secret
  // back (the chart README's runbook says so).
  it('rotate-jwt-secret rolls the Deployments through the controller-manager: old tokens refused, new logins work', async () => {
    const before = await login();
    const rotated = await run(
      'node',
      [
        'packages/server/src/main.ts',
        'rotate-jwt-secret',
        '--kubeconfig',
        KUBECONFIG,
        '--namespace',
        NAMESPACE,
        '--secret',
        RELEASE,
        '--release',
        RELEASE,
        '--timeout',
        '600',
      ],
      { maxBuffer: 4 * 1024 * 1024 },
    );
    expect(rotated.stderr + rotated.stdout).not.toMatch(/error/i);
    const refused = await call(`${contentUrl}/api/v1/users/me`, { headers: before.headers });
    expect(refused.status).toBe(401);
    const after = await login();
    expect((await call(`${contentUrl}/api/v1/users/me`, { headers: after.headers })).status).toBe(200);
  });

  it("the operator's resources deleted before helm uninstall, which leaves only the kept JWT Secret and the user's own", async () => {
    // While the operator runs: it undoes what each made and lifts its finalizer; the organization's
    // owner Secret goes with its resource (owner reference, the garbage collector).
    await kubectl(
      'delete',
      'generators,verificationcodeproviders,chatorganizations',
      '--all',
      '--wait',
      '--timeout=180s',
    );
    await eventually('the owner Secret collected', async () => {
      const secrets = await kubectl('get', 'secrets', '-o', 'name');
      return !secrets.includes('secret/acme-owner') || undefined;
    });
    await helm('uninstall', RELEASE, '--wait');
    // Helm waits for the objects it deleted; their ReplicaSets' pods go after, through the garbage
    // collector and each pod's preStop sleep and drain.
    await eventually('the pods gone', async () => (await kubectl('get', 'pods', '-o', 'name')).trim() === '');
    const left = await kubectl(
      'get',
      'all,secrets,configmaps,networkpolicies,poddisruptionbudgets,roles,rolebindings,serviceaccounts,jobs,leases',
      '-o',
      'name',
    );
    const names = left
      .split('\n')
      .filter(Boolean)
      .filter((name) => !name.endsWith('/kube-root-ca.crt') && name !== 'serviceaccount/default');
    // The operator's leader-election Lease is made (and released, not deleted) by the operator, not Helm.
    expect(names.sort()).toEqual(
      [
        `lease.coordination.k8s.io/${RELEASE}-operator`,
        `secret/${RELEASE}`,
        'secret/sms-gateway',
        'secret/temporal-tls',
        'secret/temporal-tls-stranger',
      ].sort(),
    );
    // Helm never deletes what it installed from crds/.
    const crds = await kubectl('get', 'crds', '-o', 'name');
    expect(
      crds
        .split('\n')
        .filter((name) => name.endsWith('.muse.dev'))
        .sort(),
    ).toEqual([
      'customresourcedefinition.apiextensions.k8s.io/chatorganizations.muse.dev',
      'customresourcedefinition.apiextensions.k8s.io/generators.muse.dev',
      'customresourcedefinition.apiextensions.k8s.io/verificationcodeproviders.muse.dev',
    ]);
  });

  it('an evaluation install (evaluation.enabled=true: Postgres and Temporal in the release) reaches all-Ready, serves a login and a generation, and serves them again from a pg_dump restored in place', async () => {
    const images = {
      postgres: required('MUSE_K8S_EVAL_POSTGRES_IMAGE'),
      temporal: required('MUSE_K8S_EVAL_TEMPORAL_IMAGE'),
    };
    await run('kubectl', ['--kubeconfig', KUBECONFIG, 'create', 'namespace', EVAL_NAMESPACE]);
    // The node has no volume provisioner: a hostPath volume for each part's claim, owned by the
    // uid its pod runs as (hostPath ignores fsGroup), with the size the chart asks by default.
    const volumes = { postgres: { uid: 999, size: '8Gi' }, temporal: { uid: 1000, size: '1Gi' } };
    for (const [part, { uid, size }] of Object.entries(volumes)) {
      const dir = path.join(EVAL_VOLUMES, part);
      await mkdir(dir, { recursive: true });
      await chown(dir, uid, uid);
      await applyResource({
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name: `${EVAL_NAMESPACE}-${part}` },
        spec: {
          capacity: { storage: size },
          accessModes: ['ReadWriteOnce'],
          storageClassName: 'muse-e2e-hostpath',
          persistentVolumeReclaimPolicy: 'Retain',
          hostPath: { path: dir, type: 'Directory' },
          claimRef: { namespace: EVAL_NAMESPACE, name: `data-${RELEASE}-evaluation-${part}-0` },
        },
      });
    }
    const [repository, tag] = IMAGE.split(':') as [string, string];
    const evaluationValues = path.join(workDir, 'evaluation-values.json');
    await writeFile(
      evaluationValues,
      JSON.stringify({
        image: { repository, tag, pullPolicy: 'Never' },
        // No database, Temporal or secrets given: the release brings them.
        evaluation: {
          enabled: true,
          postgres: { image: images.postgres, storageClassName: 'muse-e2e-hostpath' },
          temporal: { image: images.temporal, storageClassName: 'muse-e2e-hostpath' },
        },
        s3: s3Values,
        config: {
          outboundAllow: [NODE_IP],
          logLevel: 'warn',
          extraEnv: [
            { name: 'NODE_EXTRA_CA_CERTS', value: '/var/run/secrets/kubernetes.io/serviceaccount/ca.crt' },
          ],
        },
        serviceAccount: { automountServiceAccountToken: true },
        contentApi: { replicaCount: 1, service: { type: 'NodePort' } },
        chatApi: { replicaCount: 1 },
        operator: { replicaCount: 1 },
      }),
    );
    const started = Date.now();
    await helmIn(
      EVAL_NAMESPACE,
      'install',
      RELEASE,
      'charts/muse',
      '-f',
      evaluationValues,
      '--wait',
      '--wait-for-jobs',
      '--timeout',
      '15m',
    );
    console.log(`evaluation install → all pods Ready: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    for (const kind of ['statefulsets', 'deployments']) {
      for (const item of (await kubeJsonIn(EVAL_NAMESPACE, 'get', kind)).items) {
        expect(item.status.readyReplicas, item.metadata.name).toBe(item.spec.replicas);
      }
    }
    const statefulSets = await kubeJsonIn(EVAL_NAMESPACE, 'get', 'statefulsets');
    expect(
      statefulSets.items.map((item: { metadata: { name: string } }) => item.metadata.name).sort(),
    ).toEqual([`${RELEASE}-evaluation-postgres`, `${RELEASE}-evaluation-temporal`]);
    const service = await kubeJsonIn(EVAL_NAMESPACE, 'get', 'service', `${RELEASE}-content-api`);
    const url = `http://${NODE_IP}:${service.spec.ports[0].nodePort as number}`;
    await eventually('the evaluation content API through its NodePort', () => answers200(`${url}/readyz`));

    await kubectlIn(
      EVAL_NAMESPACE,
      'create',
      'secret',
      'generic',
      'sms-gateway',
      `--from-literal=signing-secret=${codeSecret}`,
    );
    await applyResource(
      {
        apiVersion: 'muse.dev/v1alpha1',
        kind: 'VerificationCodeProvider',
        metadata: { name: 'sms-gateway' },
        spec: {
          type: 'webhook',
          priority: 10,
          config: { url: receiverUrl },
          secrets: { signing_secret: { secretKeyRef: { name: 'sms-gateway', key: 'signing-secret' } } },
        },
      },
      EVAL_NAMESPACE,
    );
    await readyCondition('verificationcodeprovider', 'sms-gateway', EVAL_NAMESPACE);
    const user = await login(url);
    expect(user.id).toMatch(/^[0-9a-f-]{36}$/);
    // A balance to spend, in the release's own Postgres.
    await kubectlIn(
      EVAL_NAMESPACE,
      'exec',
      `${RELEASE}-evaluation-postgres-0`,
      '--',
      'psql',
      '-v',
      'ON_ERROR_STOP=1',
      '-U',
      'muse',
      '-d',
      'muse',
      '-c',
      `UPDATE content.users SET balance = 10 WHERE id = '${user.id}'`,
    );
    const { fileId } = await generatedImage(url, user.headers, 'a fox in an evaluation install', {
      what: "the generated file (the release's Temporal and worker)",
      timeoutMs: 180_000,
    });

    // Backup and restore (the chart README's runbook), on the live install: a pg_dump, a change
    // made after it, then the database dropped and restored from the dump in its place. The
    // processes reconnect by themselves and serve what was backed up: the user, the balance, the file.
    const inPostgres = ['exec', `${RELEASE}-evaluation-postgres-0`, '--'];
    const psql = (database: string, sql: string) =>
      kubectlIn(
        EVAL_NAMESPACE,
        ...inPostgres,
        'psql',
        '-v',
        'ON_ERROR_STOP=1',
        '-U',
        'muse',
        '-d',
        database,
        '-c',
        sql,
      );
    const dump = '/var/lib/postgresql/data/muse.dump';
    const backedUp = await call(`${url}/api/v1/users/me`, { headers: user.headers });
    expect(backedUp.status).toBe(200);
    await kubectlIn(
      EVAL_NAMESPACE,
      ...inPostgres,
      'pg_dump',
      '-U',
      'muse',
      '-d',
      'muse',
      '--format=custom',
      `--file=${dump}`,
    );
    await psql('muse', `UPDATE content.users SET balance = balance + 1000 WHERE id = '${user.id}'`);
    await psql('postgres', 'DROP DATABASE muse WITH (FORCE)');
    await psql('postgres', 'CREATE DATABASE muse');
    await kubectlIn(EVAL_NAMESPACE, ...inPostgres, 'pg_restore', '-U', 'muse', '-d', 'muse', dump);
    const restored = await eventually('the content API serving the restored database', async () => {
      const reply = await call(`${url}/api/v1/users/me`, { headers: user.headers });
      return reply.status === 200 ? reply.body : undefined;
    });
    expect(restored).toMatchObject({ id: user.id, balance: backedUp.body.balance });
    const again = await call(`${url}/api/v1/files/${fileId}`, { headers: user.headers });
    expect(again.body).toMatchObject({ id: fileId, status: 'completed' });
    expect((await fetch(new URL(again.body.download_url, url))).status).toBe(200);
  });

  async function applyResource(object: Record<string, unknown>, namespace = NAMESPACE): Promise<void> {
    const file = path.join(workDir, `${randomBytes(4).toString('hex')}.json`);
    await writeFile(file, JSON.stringify(object));
    await kubectlIn(namespace, 'apply', '-f', file);
  }

  async function readyCondition(kind: string, name: string, namespace = NAMESPACE): Promise<void> {
    let refused: string | undefined;
    await eventually(`${kind}/${name} Ready`, async () => {
      const object = await kubeJsonIn(namespace, 'get', kind, name);
      const ready = (object.status?.conditions ?? []).find((c: { type: string }) => c.type === 'Ready');
      // A spec the platform refuses stays refused; other reasons (a Secret not seen yet) may pass.
      if (ready?.status === 'False' && ['InvalidSpec', 'Conflict'].includes(ready.reason))
        refused = `${ready.reason}: ${ready.message}`;
      return ready?.status === 'True' || refused !== undefined || undefined;
    });
    expect(refused).toBeUndefined();
  }

  /**
   * Authenticated reads and generation submits (each with its own Idempotency-Key) in four lanes,
   * until stopped. A request whose connection failed before any answer is sent once more, as HTTP
   * clients and proxies do for idempotent requests (the key makes a submit one); those are counted
   * apart. Anything else that is not the documented success is a failure.
   */
  function steadyLoad(headers: Record<string, string>) {
    let running = true;
    let requests = 0;
    let resent = 0;
    const failures: string[] = [];
    const fileIds: string[] = [];
    const send: typeof call = async (url, init) => {
      try {
        return await call(url, init);
      } catch (error) {
        const code = ((error as Error).cause as { code?: string } | undefined)?.code;
        if (!code || !['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'UND_ERR_SOCKET'].includes(code)) throw error;
        resent++;
        return call(url, init);
      }
    };
    const lane = async (index: number) => {
      while (running) {
        requests++;
        try {
          if (index === 0) {
            const submitted = await send(`${contentUrl}/api/v1/generations/images`, {
              method: 'POST',
              headers: { ...headers, 'idempotency-key': randomBytes(12).toString('hex') },
              body: { generator_id: BUILTIN_IMAGE_GENERATOR, prompt: `load ${requests}`, count: 1 },
            });
            if (submitted.status !== 202)
              failures.push(`submit ${submitted.status} ${JSON.stringify(submitted.body)}`);
            else fileIds.push(...(submitted.body.file_ids as string[]));
            await sleep(1000);
          } else {
            const answer = await send(`${contentUrl}/api/v1/users/me`, { headers });
            if (answer.status !== 200) failures.push(`GET /users/me ${answer.status}`);
          }
        } catch (error) {
          failures.push(String((error as Error).cause ?? error));
        }
      }
    };
    const lanes = [0, 1, 2, 3].map(lane);
    return {
      async stop() {
        running = false;
        await Promise.all(lanes);
        return { requests, resent, failures, fileIds };
      },
    };
  }

  /**
   * Each file ends completed (charged once) or failed (charged and refunded once), read from the
   * database: the files' states and the user's ledger (a fresh user per phase).
   */
  async function expectSettledOnce(user: { id: string }, fileIds: string[]): Promise<void> {
    const statuses = await eventually(
      'every generation settled',
      async () => {
        const { rows } = await database.query<{ status: string; count: string }>(
          'SELECT status, count(*) FROM content.files WHERE id = ANY($1::uuid[]) GROUP BY status',
          [fileIds],
        );
        const counts = Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]));
        return (counts.completed ?? 0) + (counts.failed ?? 0) === fileIds.length ? counts : undefined;
      },
      { timeoutMs: 900_000 },
    );
    const { rows } = await database.query<{ kind: string; count: string; reversed: string }>(
      `SELECT kind, count(*), count(DISTINCT reverses_id) AS reversed
         FROM content.transaction_logs WHERE owner_id = $1 AND kind IN ('charge', 'refund') GROUP BY kind`,
      [user.id],
    );
    const ledger = Object.fromEntries(rows.map((row) => [row.kind, row]));
    console.log(
      `settled: ${statuses.completed ?? 0} completed, ${statuses.failed ?? 0} failed; ledger: ${ledger.charge?.count ?? 0} charges, ${ledger.refund?.count ?? 0} refunds`,
    );
    expect(Number(ledger.charge?.count ?? 0)).toBe(fileIds.length);
    expect(Number(ledger.refund?.count ?? 0)).toBe(statuses.failed ?? 0);
    expect(Number(ledger.refund?.reversed ?? 0)).toBe(statuses.failed ?? 0);
  }
});
