import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { KubeConfig, KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import { freePort } from '@muse/core';
import {
  CRD_KINDS,
  GROUP,
  RESOURCE_KINDS,
  createKube,
  customResourceDefinition,
  type Kube,
} from '@muse/operator';
import { afterToolsBuild } from './tools.ts';

const BUILD_SCRIPT = fileURLToPath(new URL('../../tools/k8s/build.sh', import.meta.url));

/**
 * Where tools/k8s/build.sh keeps kube-apiserver, etcd and helm, once `npm test`'s background build
 * made them; a clear error when they are not built.
 */
export async function kubeBinDir(binaries = ['etcd', 'kube-apiserver']): Promise<string> {
  const dir = execFileSync('bash', [BUILD_SCRIPT, '--dir'], { encoding: 'utf8' }).trim();
  await afterToolsBuild(binaries.map((binary) => path.join(dir, binary)));
  for (const binary of binaries) {
    if (!existsSync(path.join(dir, binary))) {
      throw new Error(
        `${binary} is not built (looked in ${dir}). Run tools/k8s/build.sh once (CI's .ci/run does): ` +
          'it builds kube-apiserver, etcd and helm from the pinned tools module and caches them.',
      );
    }
  }
  return dir;
}

export interface TestKube {
  /** https://127.0.0.1:<port> of the API server. */
  server: string;
  kubeconfigPath: string;
  config: KubeConfig;
  kube: Kube;
  objects: KubernetesObjectApi;
  binDir: string;
  /**
   * Sends an object as JSON exactly as written (the typed clients drop fields their models do not
   * know, such as a CRD's `x-kubernetes-*`), with strict field validation: unknown fields are errors.
   */
  send(method: 'POST' | 'PUT', object: KubernetesObject, options?: { dryRun?: boolean }): Promise<RawAnswer>;
  /** A kubeconfig like `kubeconfigPath`, but for another server address (a proxy in front). */
  kubeconfigFor(server: string): Promise<string>;
  stop(): Promise<void>;
}

/** Starts a child whose output is kept for the error message if it dies early. */
function startProcess(binary: string, args: string[]): { child: ChildProcess; output: () => string } {
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return { child, output: () => output };
}

export interface RawAnswer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the API server's answer, read loosely by tests
  body: any;
}

/** Exposes where an object is created or replaced (the client's own discovery-backed mapping). */
class ObjectPaths extends KubernetesObjectApi {
  pathFor(object: KubernetesObject, action: 'create' | 'replace'): Promise<string> {
    return this.specUriPath(object, action);
  }
}

function httpsJson(
  url: string,
  ca: Buffer,
  token: string,
  method: string,
  body: unknown,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = https.request(
      url,
      { method, ca, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
        });
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

async function waitUntil(
  what: string,
  check: () => Promise<boolean>,
  process: { child: ChildProcess; output: () => string },
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (process.child.exitCode !== null)
      throw new Error(`${what} exited (${process.child.exitCode}):\n${process.output()}`);
    if (await check().catch(() => false)) return;
    await sleep(100);
  }
  throw new Error(`${what} not ready after ${timeoutMs / 1000} s:\n${process.output()}`);
}

function httpsGet(url: string, ca: Buffer, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca, headers: { authorization: `Bearer ${token}` } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', reject);
  });
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * A real Kubernetes control plane for one test file: etcd and kube-apiserver on free loopback
 * ports, a static admin token, the server's own self-signed certificate as the CA. No
 * controller-manager: nothing turns Deployments into Pods, and no garbage collector runs.
 */
export async function startKube(): Promise<TestKube> {
  const binDir = await kubeBinDir();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'muse-kube-'));
  const [etcdPort, peerPort, apiPort] = [await freePort(), await freePort(), await freePort()];
  const etcdUrl = `http://127.0.0.1:${etcdPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  const etcd = startProcess(path.join(binDir, 'etcd'), [
    '--name=default',
    `--data-dir=${path.join(dir, 'etcd')}`,
    `--listen-client-urls=${etcdUrl}`,
    `--advertise-client-urls=${etcdUrl}`,
    `--listen-peer-urls=${peerUrl}`,
    `--initial-advertise-peer-urls=${peerUrl}`,
    `--initial-cluster=default=${peerUrl}`,
    '--unsafe-no-fsync',
    '--log-level=error',
  ]);
  const processes = [etcd];
  const stopAll = async () => {
    for (const { child } of processes.reverse()) await stopProcess(child);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitUntil('etcd', async () => (await fetch(`${etcdUrl}/health`)).ok, etcd);

    const token = randomBytes(24).toString('hex');
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const certDir = path.join(dir, 'certs');
    await writeFile(path.join(dir, 'sa.key'), privateKey.export({ type: 'pkcs1', format: 'pem' }));
    await writeFile(path.join(dir, 'sa.pub'), publicKey.export({ type: 'spki', format: 'pem' }));
    await writeFile(path.join(dir, 'tokens.csv'), `${token},admin,admin-uid,"system:masters"\n`);
    const apiserver = startProcess(path.join(binDir, 'kube-apiserver'), [
      `--etcd-servers=${etcdUrl}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      '--endpoint-reconciler-type=none',
      `--secure-port=${apiPort}`,
      `--cert-dir=${certDir}`,
      `--service-account-issuer=https://kubernetes.default.svc`,
      `--service-account-key-file=${path.join(dir, 'sa.pub')}`,
      `--service-account-signing-key-file=${path.join(dir, 'sa.key')}`,
      `--token-auth-file=${path.join(dir, 'tokens.csv')}`,
      '--authorization-mode=RBAC',
      '--service-cluster-ip-range=10.0.0.0/24',
      '--disable-admission-plugins=ServiceAccount',
      '--v=0',
    ]);
    processes.push(apiserver);
    const server = `https://127.0.0.1:${apiPort}`;
    const caFile = path.join(certDir, 'apiserver.crt');
    let ca: Buffer | undefined;
    await waitUntil(
      'kube-apiserver',
      async () => {
        ca ??= existsSync(caFile) ? await readFile(caFile) : undefined;
        return ca !== undefined && (await httpsGet(`${server}/readyz`, ca, token)) === 200;
      },
      apiserver,
    );

    const kubeconfigFor = async (address: string) => {
      const file = path.join(dir, `kubeconfig-${randomBytes(4).toString('hex')}`);
      await writeFile(
        file,
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Config',
          clusters: [{ name: 'test', cluster: { server: address, 'certificate-authority': caFile } }],
          users: [{ name: 'admin', user: { token } }],
          contexts: [{ name: 'test', context: { cluster: 'test', user: 'admin', namespace: 'default' } }],
          'current-context': 'test',
        }),
      );
      return file;
    };
    const kubeconfigPath = await kubeconfigFor(server);
    const config = new KubeConfig();
    config.loadFromFile(kubeconfigPath);
    const paths = config.makeApiClient(ObjectPaths);
    const send: TestKube['send'] = async (method, object, options = {}) => {
      const path = await paths.pathFor(object, method === 'POST' ? 'create' : 'replace');
      const query = `?fieldValidation=Strict${options.dryRun ? '&dryRun=All' : ''}`;
      return httpsJson(`${server}${path}${query}`, ca!, token, method, object);
    };
    return {
      send,
      server,
      kubeconfigPath,
      config,
      kube: createKube(config),
      objects: KubernetesObjectApi.makeApiClient(config),
      binDir,
      kubeconfigFor,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** Creates each object as written, or replaces it when it exists. */
export async function applyObjects(kube: TestKube, objects: KubernetesObject[]): Promise<void> {
  for (const object of objects) {
    let answer = await kube.send('POST', object);
    if (answer.status === 409) {
      const current = await kube.objects.read(object as never);
      answer = await kube.send('PUT', {
        ...object,
        metadata: { ...object.metadata, resourceVersion: current.metadata?.resourceVersion },
      });
    }
    if (answer.status >= 300)
      throw new Error(
        `${object.kind}/${object.metadata?.name}: ${answer.status} ${JSON.stringify(answer.body)}`,
      );
  }
}

/** Waits until every CRD is Established (served). */
export async function waitForCrds(kube: TestKube, names: string[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (const name of names) {
    for (;;) {
      const crd = (await kube.objects.read({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name },
      })) as KubernetesObject & { status?: { conditions?: { type: string; status: string }[] } };
      if (crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) break;
      if (Date.now() > deadline) throw new Error(`CRD ${name} not established`);
      await sleep(100);
    }
  }
}

/** Polls `read` until `done` accepts its value; returns that value. */
export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  { timeoutMs = 60_000, what = 'condition' } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      last = await read();
      if (done(last)) return last;
    } catch (error) {
      lastError = error;
    }
    await sleep(100);
  }
  throw new Error(
    `${what} not reached after ${timeoutMs / 1000} s; last value: ${JSON.stringify(last)}${
      lastError ? `; last error: ${(lastError as Error).message}` : ''
    }`,
  );
}

/**
 * A TCP proxy in front of the API server whose connections the test can cut, as a network
 * failure or a load balancer would (TLS passes through untouched).
 */
export async function startCuttableProxy(
  target: string,
): Promise<{ url: string; cut(): number; close(): Promise<void> }> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: proxyPort } = server.address() as net.AddressInfo;
  return {
    url: `https://127.0.0.1:${proxyPort}`,
    cut() {
      const count = sockets.size;
      for (const socket of sockets) socket.destroy();
      return count;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The operator's CRDs, created and served. */
export async function installMuseCrds(kube: TestKube): Promise<void> {
  await applyObjects(kube, CRD_KINDS.map((kind) => customResourceDefinition(kind)) as KubernetesObject[]);
  await waitForCrds(
    kube,
    CRD_KINDS.map((kind) => `${RESOURCE_KINDS[kind].plural}.${GROUP}`),
  );
}
