import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@muse/core';
import { GROUP, VERSION } from '@muse/operator';
import { createTestDatabase, type TestDatabase } from '@muse/test-support/database';
import { applyObjects, eventually, startKube, installMuseCrds, type TestKube } from '@muse/test-support/kube';
import { TOOLS_HOOK_TIMEOUT_MS } from '@muse/test-support/tools';

const main = fileURLToPath(new URL('../../server/src/main.ts', import.meta.url));
const NAMESPACE = 'default';
// Each `muse-server` child loads every workspace module first: slow on a busy machine.
const PROCESS_TIMEOUT_MS = 300_000;

let kube: TestKube;
let database: TestDatabase;
const children: ChildProcess[] = [];

function muse(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [main, ...args], {
    env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'info', MUSE_HOST: '127.0.0.1', ...env },
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, exited, output: () => output };
}

beforeAll(async () => {
  [kube, database] = await Promise.all([startKube(), createTestDatabase()]);
  await installMuseCrds(kube);
}, TOOLS_HOOK_TIMEOUT_MS);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await Promise.all([kube?.stop(), database?.drop()]);
});

describe('two `muse-server operator` processes', { timeout: PROCESS_TIMEOUT_MS }, () => {
  it('elect one leader, which reconciles; when it stops, the other takes over', async () => {
    const leaseName = 'muse-operator-election';
    const start = async (identity: string) => {
      const port = await freePort();
      const process = muse(
        [
          'operator',
          `--kubeconfig=${kube.kubeconfigPath}`,
          `--namespace=${NAMESPACE}`,
          `--lease-name=${leaseName}`,
          `--lease-namespace=${NAMESPACE}`,
          `--identity=${identity}`,
          '--lease-duration-seconds=4',
        ],
        { DATABASE_URL: database.url, MUSE_OPERATOR_METRICS_PORT: String(port) },
      );
      return { identity, port, ...process };
    };
    const [a, b] = await Promise.all([start('replica-a'), start('replica-b')]);
    const leaderGauge = async (port: number) => {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      return Number(/^muse_operator_leader (\d+)/m.exec(text)?.[1]);
    };
    const gauges = () => Promise.all([leaderGauge(a.port), leaderGauge(b.port)]);

    // Both up, exactly one leading, and the Lease names it.
    const [ga, gb] = await eventually(gauges, ([x, y]) => x + y === 1 && !Number.isNaN(x + y), {
      timeoutMs: PROCESS_TIMEOUT_MS - 60_000,
      what: 'one leader among two operators',
    });
    const [leader, follower] = ga === 1 ? [a, b] : [b, a];
    expect(gb).toBe(1 - ga);
    const lease = await kube.kube.coordination.readNamespacedLease({ name: leaseName, namespace: NAMESPACE });
    expect(lease.spec?.holderIdentity).toBe(leader.identity);
    // Over several renewals, still one leader.
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect((await gauges()).reduce((x, y) => x + y)).toBe(1);
    }

    // The leader reconciles a resource.
    await kube.kube.custom.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: NAMESPACE,
      plural: 'generators',
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'Generator',
        metadata: { name: 'from-a-process' },
        spec: { kind: 'text', type: 'builtin', baseCost: 1 },
      },
    });
    await eventually(
      () =>
        kube.kube.custom.getNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          namespace: NAMESPACE,
          plural: 'generators',
          name: 'from-a-process',
        }),
      (g: { status?: { conditions?: { type: string; status: string }[] } }) =>
        Boolean(g.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')),
      { timeoutMs: 120_000, what: 'the Generator reconciled by the leader' },
    );

    // A stopping leader hands the Lease over.
    leader.child.kill('SIGTERM');
    expect(await leader.exited).toBe(0);
    await eventually(
      () => leaderGauge(follower.port),
      (value) => value === 1,
      {
        timeoutMs: 60_000,
        what: 'the other replica leading',
      },
    );
    const after = await kube.kube.coordination.readNamespacedLease({ name: leaseName, namespace: NAMESPACE });
    expect(after.spec?.holderIdentity).toBe(follower.identity);
    follower.child.kill('SIGTERM');
    expect(await follower.exited).toBe(0);
  });
});

describe('muse-server rotate-jwt-secret', { timeout: PROCESS_TIMEOUT_MS }, () => {
  const deployment = (name: string, component: string) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name,
      namespace: NAMESPACE,
      labels: { 'app.kubernetes.io/instance': 'muse', 'app.kubernetes.io/component': component },
    },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'muse', image: 'muse:0.1.0' }] },
      },
    },
  });
  const secretValue = async () =>
    Buffer.from(
      (await kube.kube.core.readNamespacedSecret({ name: 'muse-auth', namespace: NAMESPACE })).data![
        'jwt-secret'
      ]!,
      'base64',
    ).toString();

  beforeAll(async () => {
    await applyObjects(kube, [
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'muse-auth', namespace: NAMESPACE },
        stringData: { 'jwt-secret': 'the-old-secret-of-at-least-32-characters' },
      },
      deployment('muse-content-api', 'content-api'),
      deployment('muse-chat-api', 'chat-api'),
      deployment('muse-worker', 'worker'),
      deployment('muse-operator', 'operator'),
    ] as never);
  });

  const read = (name: string) => kube.kube.apps.readNamespacedDeployment({ name, namespace: NAMESPACE });
  const rotate = (...options: string[]) =>
    muse([
      'rotate-jwt-secret',
      `--kubeconfig=${kube.kubeconfigPath}`,
      `--namespace=${NAMESPACE}`,
      '--release=muse',
      ...options,
    ]);
  const restartedAt = (d: Awaited<ReturnType<typeof read>>) =>
    d.spec!.template.metadata!.annotations?.['kubectl.kubernetes.io/restartedAt'];
  const ROLLED = ['muse-content-api', 'muse-chat-api', 'muse-worker'];

  it('writes a new secret and restarts the API and worker Deployments of the release', async () => {
    const before = await Promise.all([...ROLLED, 'muse-operator'].map(read));
    const rotation = rotate('--secret=muse-auth', '--no-wait');
    expect(await rotation.exited, rotation.output()).toBe(0);
    const secret = await secretValue();
    expect(secret).not.toBe('the-old-secret-of-at-least-32-characters');
    expect(secret.length).toBeGreaterThanOrEqual(32);
    const after = await Promise.all([...ROLLED, 'muse-operator'].map(read));
    for (let i = 0; i < ROLLED.length; i++) {
      expect(restartedAt(after[i]!)).toBeDefined();
      expect(after[i]!.metadata!.generation).toBe(before[i]!.metadata!.generation! + 1);
    }
    // Not part of the selection: the operator does not sign tokens.
    expect(restartedAt(after[3]!)).toBeUndefined();
    const result = JSON.parse(rotation.output().trim().split('\n').at(-1)!);
    expect(result.deployments.map((d: { name: string }) => d.name).sort()).toEqual([...ROLLED].sort());
  });

  it('waits for the rollouts: done once the Deployments report the new generation rolled out', async () => {
    // No controller-manager runs here, so this test plays the Deployment controller: it
    // reports each restarted Deployment rolled out, as `kubectl rollout status` would read it.
    const before = await Promise.all(ROLLED.map(read));
    const rotation = rotate('--secret=muse-auth', '--timeout=240');
    for (const [i, name] of ROLLED.entries()) {
      const restarted = await eventually(
        () => read(name),
        (d) => d.metadata!.generation! > before[i]!.metadata!.generation!,
        { timeoutMs: 200_000, what: `${name} restarted` },
      );
      await kube.kube.apps.replaceNamespacedDeploymentStatus({
        name,
        namespace: NAMESPACE,
        body: {
          ...restarted,
          status: {
            observedGeneration: restarted.metadata!.generation!,
            replicas: 1,
            updatedReplicas: 1,
            readyReplicas: 1,
            availableReplicas: 1,
          },
        },
      });
    }
    expect(await rotation.exited, rotation.output()).toBe(0);
    expect(rotation.output()).toContain('deployment/muse-worker rolled out');
  });

  it('fails naming the Deployment whose rollout did not finish in time; the secret is written', async () => {
    const previous = await secretValue();
    const rotation = rotate('--secret=muse-auth', '--timeout=1');
    expect(await rotation.exited).toBe(1);
    expect(rotation.output()).toMatch(/deployment\/muse-\S+ has not finished rolling out/);
    expect(await secretValue()).not.toBe(previous);
  });

  it('changes nothing when the Secret does not exist', async () => {
    const before = await read('muse-content-api');
    const rotation = rotate('--secret=missing', '--no-wait');
    expect(await rotation.exited).toBe(1);
    expect(rotation.output()).toContain('Secret default/missing does not exist; nothing was changed');
    expect((await read('muse-content-api')).metadata!.generation).toBe(before.metadata!.generation);
  });
});
