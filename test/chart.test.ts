import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import type { KubernetesObject } from '@kubernetes/client-node';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@muse/core';
import { CRD_KINDS, customResourceDefinition } from '@muse/operator';
import { renderCrdFiles } from '../packages/operator/src/resources/crd-files.ts';
import { readmeWithValuesTable } from '../packages/operator/src/resources/chart-readme.ts';
import { readFile } from 'node:fs/promises';
import { applyObjects, kubeBinDir, startKube, waitForCrds, type TestKube } from './support/kube.ts';
import { TOOLS_HOOK_TIMEOUT_MS } from './support/tools.ts';

const CHART = fileURLToPath(new URL('../charts/muse', import.meta.url));
const CI_VALUES = ['minimal', 'hooks', 'ingress', 'existing-secrets'].map((name) =>
  path.join(CHART, 'ci', `${name}-values.yaml`),
);
const NAMESPACE = 'muse-ci';
const run = promisify(execFile);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Manifest = KubernetesObject & Record<string, any>;

let kube: TestKube;
let helmBin: string;

async function helm(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(helmBin, [...args, '--kubeconfig', kube.kubeconfigPath], {
      maxBuffer: 64 * 1024 * 1024,
      env: {
        ...process.env,
        HELM_CACHE_HOME: '/tmp/muse-helm/cache',
        HELM_CONFIG_HOME: '/tmp/muse-helm/config',
      },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

async function render(values: string[], extra: string[] = []): Promise<Manifest[]> {
  const result = await helm([
    'template',
    'muse',
    CHART,
    '--namespace',
    NAMESPACE,
    ...values.flatMap((file) => ['-f', file]),
    ...extra,
  ]);
  expect(result.code, result.stderr).toBe(0);
  return parseAllDocuments(result.stdout)
    .map((doc) => doc.toJS() as Manifest | null)
    .filter((doc): doc is Manifest => Boolean(doc));
}

const find = (manifests: Manifest[], kind: string, name: string) =>
  manifests.find((m) => m.kind === kind && m.metadata?.name === name);

beforeAll(async () => {
  kube = await startKube();
  helmBin = path.join(await kubeBinDir(['helm']), 'helm');
  await kube.kube.core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
  // The chart's CRDs, and stand-ins (any content accepted) for the Gateway API's HTTPRoute and the
  // Prometheus Operator's ServiceMonitor, whose real CRDs are not part of Kubernetes.
  const standIn = (group: string, kind: string, plural: string) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    // *.k8s.io groups are reserved; a stand-in says it is not the approved API.
    metadata: {
      name: `${plural}.${group}`,
      annotations: { 'api-approved.kubernetes.io': 'unapproved, test stand-in' },
    },
    spec: {
      group,
      scope: 'Namespaced',
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  });
  await applyObjects(kube, [
    ...CRD_KINDS.map((kind) => customResourceDefinition(kind)),
    standIn('gateway.networking.k8s.io', 'HTTPRoute', 'httproutes'),
    standIn('monitoring.coreos.com', 'ServiceMonitor', 'servicemonitors'),
    standIn('monitoring.coreos.com', 'PrometheusRule', 'prometheusrules'),
  ] as KubernetesObject[]);
  await waitForCrds(kube, [
    'generators.muse.dev',
    'verificationcodeproviders.muse.dev',
    'chatorganizations.muse.dev',
    'httproutes.gateway.networking.k8s.io',
    'servicemonitors.monitoring.coreos.com',
    'prometheusrules.monitoring.coreos.com',
  ]);
}, TOOLS_HOOK_TIMEOUT_MS);

afterAll(async () => {
  await kube?.stop();
});

describe('the generated files of the chart', () => {
  it('has CRDs generated from the current schemas (npm run crds -w @muse/operator)', async () => {
    for (const { path: file, content } of renderCrdFiles())
      expect(await readFile(file, 'utf8'), file).toBe(content);
  });

  it('has a values table generated from the current values.yaml (npm run chart:readme -w @muse/operator)', async () => {
    const { current, expected } = await readmeWithValuesTable();
    expect(current).toBe(expected);
  });
});

// helm runs as a child process: slow on a busy machine.
describe('helm lint and helm template', { timeout: 180_000 }, () => {
  it.each(CI_VALUES)('lints with %s', async (file) => {
    const result = await helm(['lint', CHART, '-f', file]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
  });

  it('refuses the bare defaults with one message naming every missing setting', async () => {
    const result = await helm(['template', 'muse', CHART]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('Muse chart values are incomplete');
    expect(result.stderr).toMatch(/database: set database.url/);
    expect(result.stderr).toMatch(/temporal: set temporal.address/);
    expect(result.stderr).toMatch(/auth: set auth.existingSecret/);
    expect(result.stderr).toMatch(/secrets key .*: set auth.existingSecret .*auth.generateSecretsKey=true/);
    // Once, from the one template that checks, not again from every template including another
    // (helm logs each failing template: lint showed it five times, an install against a cluster ten).
    expect(result.stderr.split('Muse chart values are incomplete')).toHaveLength(2);
    const lint = await helm(['lint', CHART]);
    expect(lint.stdout + lint.stderr).toContain('Muse chart values are incomplete');
    expect((lint.stdout + lint.stderr).split('Muse chart values are incomplete')).toHaveLength(2);
  });

  it('refuses an install that could not store a secret (no secrets key), saying how to give one', async () => {
    const result = await helm([
      'template',
      'muse',
      CHART,
      '--set',
      'database.url=postgres://muse:muse@db:5432/muse',
      '--set',
      'temporal.address=temporal:7233',
      '--set',
      'auth.generateJwtSecret=true',
    ]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/secrets key .*auth.generateSecretsKey=true/);
    expect(result.stderr).not.toMatch(/database:|temporal:|auth: set/);
  });

  it('generates a secrets key of 32 bytes and gives it to every process', async () => {
    const manifests = await render([path.join(CHART, 'ci', 'hooks-values.yaml')]);
    const secret = find(manifests, 'Secret', 'muse')!;
    const key = Buffer.from(secret.data['secrets-key'], 'base64').toString();
    expect(Buffer.from(key, 'base64')).toHaveLength(32);
    expect(secret.metadata!.annotations?.['helm.sh/resource-policy']).toBe('keep');
    for (const deployment of manifests.filter((m) => m.kind === 'Deployment')) {
      expect(deployment.spec.template.spec.containers[0].env, deployment.metadata!.name).toContainEqual({
        name: 'MUSE_SECRETS_KEY',
        valueFrom: { secretKeyRef: { name: 'muse', key: 'secrets-key' } },
      });
    }
  });

  it('connects to Temporal with TLS, a client certificate and an API key from Secrets, in the pods that reach it', async () => {
    const manifests = await render(
      [CI_VALUES[0]!],
      [
        '--set',
        'temporal.tls.enabled=true',
        '--set',
        'temporal.tls.serverName=temporal.example.com',
        '--set',
        'temporal.tls.existingSecret=muse-temporal-tls',
        '--set',
        'temporal.apiKeySecret.name=muse-temporal-cloud',
      ],
    );
    expect(find(manifests, 'ConfigMap', 'muse')!.data).toMatchObject({
      TEMPORAL_TLS: 'true',
      TEMPORAL_TLS_SERVER_NAME: 'temporal.example.com',
      TEMPORAL_TLS_CA_FILE: '/etc/muse/temporal-tls/ca.crt',
      TEMPORAL_TLS_CERT_FILE: '/etc/muse/temporal-tls/tls.crt',
      TEMPORAL_TLS_KEY_FILE: '/etc/muse/temporal-tls/tls.key',
    });
    for (const name of ['muse-content-api', 'muse-chat-api', 'muse-worker']) {
      const pod = find(manifests, 'Deployment', name)!.spec.template.spec;
      expect(pod.volumes, name).toContainEqual({
        name: 'temporal-tls',
        secret: {
          secretName: 'muse-temporal-tls',
          items: [
            { key: 'ca.crt', path: 'ca.crt' },
            { key: 'tls.crt', path: 'tls.crt' },
            { key: 'tls.key', path: 'tls.key' },
          ],
        },
      });
      expect(pod.containers[0].volumeMounts, name).toContainEqual({
        name: 'temporal-tls',
        mountPath: '/etc/muse/temporal-tls',
        readOnly: true,
      });
      expect(pod.containers[0].env, name).toContainEqual({
        name: 'TEMPORAL_API_KEY',
        valueFrom: { secretKeyRef: { name: 'muse-temporal-cloud', key: 'api-key' } },
      });
    }
    // The operator never calls Temporal: no client certificate in its pod.
    const operator = find(manifests, 'Deployment', 'muse-operator')!.spec.template.spec;
    expect(operator.volumes.map((v: { name: string }) => v.name)).not.toContain('temporal-tls');
  });

  it('mounts extra volumes and environment per component, and the database CA in every pod', async () => {
    const manifests = await render(
      [CI_VALUES[0]!],
      [
        '--set',
        'chatApi.extraVolumes[0].name=apns',
        '--set',
        'chatApi.extraVolumes[0].secret.secretName=muse-apns',
        '--set',
        'chatApi.extraVolumeMounts[0].name=apns',
        '--set',
        'chatApi.extraVolumeMounts[0].mountPath=/etc/muse/apns',
        '--set',
        'chatApi.extraEnv[0].name=MUSE_PUSH_APNS_KEY_FILE',
        '--set',
        'chatApi.extraEnv[0].value=/etc/muse/apns/key.p8',
        '--set',
        'database.ca.existingSecret=muse-database-ca',
        '--set',
        'database.poolMax=20',
        '--set',
        'worker.databasePoolMax=5',
      ],
    );
    const pod = (name: string) => find(manifests, 'Deployment', name)!.spec.template.spec;
    expect(pod('muse-chat-api').volumes).toContainEqual({
      name: 'apns',
      secret: { secretName: 'muse-apns' },
    });
    expect(pod('muse-chat-api').containers[0].volumeMounts).toContainEqual({
      name: 'apns',
      mountPath: '/etc/muse/apns',
    });
    expect(pod('muse-chat-api').containers[0].env).toContainEqual({
      name: 'MUSE_PUSH_APNS_KEY_FILE',
      value: '/etc/muse/apns/key.p8',
    });
    expect(pod('muse-content-api').volumes.map((v: { name: string }) => v.name)).not.toContain('apns');
    const job = manifests.find((m) => m.kind === 'Job')!.spec.template.spec;
    for (const spec of [
      pod('muse-content-api'),
      pod('muse-chat-api'),
      pod('muse-worker'),
      pod('muse-operator'),
      job,
    ]) {
      expect(spec.volumes).toContainEqual({
        name: 'database-ca',
        secret: { secretName: 'muse-database-ca', items: [{ key: 'ca.crt', path: 'ca.crt' }] },
      });
      for (const container of [...spec.containers, ...(spec.initContainers ?? [])])
        expect(container.volumeMounts).toContainEqual({
          name: 'database-ca',
          mountPath: '/etc/muse/database-ca',
          readOnly: true,
        });
    }
    expect(find(manifests, 'ConfigMap', 'muse')!.data).toMatchObject({
      NODE_EXTRA_CA_CERTS: '/etc/muse/database-ca/ca.crt',
      PGSSLMODE: 'verify-full',
      MUSE_DB_POOL_MAX: '20',
    });
    expect(pod('muse-worker').containers[0].env).toContainEqual({ name: 'MUSE_DB_POOL_MAX', value: '5' });
  });

  it.each([
    [['--set', 'image.pullPolicy=Sometimes'], /image.pullPolicy|pullPolicy/],
    [['--set', 'contentApi.replicaCount=-1'], /contentApi.replicaCount|minimum/],
    [['--set', 'auth.jwtSecret=too-short'], /jwtSecret/],
    [['--set', 'contentApi.replicas=3'], /replicas/],
    [['--set', 'temporal.address=http://temporal'], /temporal.address|address/],
    [['--set', 'worker.extraVolumeMounts[0].name=apns'], /mountPath/],
    [['--set', 'database.poolMax=0'], /poolMax/],
    [['--set', 'temporal.callTimeoutMs=50'], /callTimeoutMs/],
    [['--set', 'config.chatWebhookTimeoutSeconds=601'], /chatWebhookTimeoutSeconds/],
  ])('values.schema.json rejects %j', async (extra, message) => {
    const result = await helm(['template', 'muse', CHART, '-f', CI_VALUES[0]!, ...extra]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('values don');
    expect(result.stderr).toMatch(message);
  });

  it('renders pods that are non-root, read-only, without capabilities, probed, and rolled on config changes', async () => {
    const manifests = await render([CI_VALUES[0]!]);
    const deployments = manifests.filter((m) => m.kind === 'Deployment');
    expect(deployments.map((d) => d.metadata!.name).sort()).toEqual([
      'muse-chat-api',
      'muse-content-api',
      'muse-operator',
      'muse-worker',
    ]);
    for (const deployment of deployments) {
      const pod = deployment.spec.template.spec;
      expect(pod.securityContext).toMatchObject({
        runAsNonRoot: true,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      for (const container of [...pod.containers, ...(pod.initContainers ?? [])]) {
        expect(container.securityContext).toMatchObject({
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
        });
      }
      expect(pod.initContainers[0].args).toEqual(['migrate', '--wait', '--timeout', '600']);
      expect(deployment.spec.template.metadata.annotations).toHaveProperty('checksum/config');
      expect(pod.topologySpreadConstraints).toHaveLength(2);
    }
    const content = find(manifests, 'Deployment', 'muse-content-api')!.spec.template.spec.containers[0];
    expect(content.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(content.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(content.startupProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(content.env).toContainEqual({
      name: 'MUSE_JWT_SECRET',
      valueFrom: { secretKeyRef: { name: 'muse-auth', key: 'jwt-secret' } },
    });
    const config = find(manifests, 'ConfigMap', 'muse')!;
    expect(config.data).toMatchObject({
      MUSE_TRUST_PROXY: 'false',
      MUSE_CONTENT_METRICS_PORT: '9464',
      MUSE_DELIVERY_WAKE_EARLY_SECONDS: '30',
    });
    const job = manifests.find((m) => m.kind === 'Job')!;
    expect(job.metadata!.name).toMatch(/^muse-migrate-[0-9a-f]{10}$/);
    expect(job.metadata!.annotations?.['helm.sh/hook']).toBeUndefined();
    expect(manifests.filter((m) => m.kind === 'PodDisruptionBudget')).toHaveLength(4);
    expect(manifests.some((m) => m.kind === 'Secret')).toBe(false);
  });

  it('passes the durations operators tune to every process, under the names the configuration reads', async () => {
    const data = async (extra: string[]) =>
      find(await render([CI_VALUES[0]!], extra), 'ConfigMap', 'muse')!.data as Record<string, string>;
    const defaults = loadConfig(await data([]));
    expect(defaults).toMatchObject({
      MUSE_TEMPORAL_CALL_TIMEOUT_MS: 10000,
      MUSE_DELIVERY_HEARTBEAT_TIMEOUT_MS: 30000,
      MUSE_WORKER_STICKY_TIMEOUT_MS: 10000,
      MUSE_CHAT_WEBHOOK_TIMEOUT_SECONDS: 10,
    });
    const tuned = loadConfig(
      await data([
        ...['--set', 'temporal.callTimeoutMs=2500'],
        ...['--set', 'config.deliveryHeartbeatTimeoutMs=15000'],
        ...['--set', 'config.workerStickyTimeoutMs=2000'],
        ...['--set', 'config.chatWebhookTimeoutSeconds=30'],
      ]),
    );
    expect(tuned).toMatchObject({
      MUSE_TEMPORAL_CALL_TIMEOUT_MS: 2500,
      MUSE_DELIVERY_HEARTBEAT_TIMEOUT_MS: 15000,
      MUSE_WORKER_STICKY_TIMEOUT_MS: 2000,
      MUSE_CHAT_WEBHOOK_TIMEOUT_SECONDS: 30,
    });
  });

  it('runs a worker Deployment per pool, each serving its workloads with its own slots', async () => {
    const manifests = await render(
      [CI_VALUES[0]!],
      [
        ...['--set', 'worker.workloads=generation'],
        ...[
          '--set',
          'worker.pools[0].name=delivery',
          '--set',
          'worker.pools[0].workloads=delivery\\,payments',
        ],
        ...['--set', 'worker.pools[0].activitySlots=50', '--set', 'worker.pools[0].replicaCount=2'],
        ...['--set', 'worker.pools[0].deliverySlots=3000'],
      ],
    );
    const envOf = (name: string) =>
      Object.fromEntries(
        (
          find(manifests, 'Deployment', name)!.spec.template.spec.containers[0].env as {
            name: string;
            value?: string;
          }[]
        )
          .filter((variable) => variable.name.startsWith('MUSE_WORKER_'))
          .map((variable) => [variable.name, variable.value]),
      );
    expect(envOf('muse-worker')).toEqual({ MUSE_WORKER_WORKLOADS: 'generation' });
    expect(envOf('muse-worker-delivery')).toEqual({
      MUSE_WORKER_WORKLOADS: 'delivery,payments',
      MUSE_WORKER_ACTIVITY_SLOTS: '50',
      MUSE_WORKER_DELIVERY_SLOTS: '3000',
    });
    const pool = find(manifests, 'Deployment', 'muse-worker-delivery')!;
    expect(pool.spec.replicas).toBe(2);
    expect(pool.spec.template.spec.containers[0].args).toEqual(['worker']);
    for (const kind of ['Service', 'PodDisruptionBudget', 'NetworkPolicy'])
      expect(find(manifests, kind, 'muse-worker-delivery'), kind).toBeDefined();
    const refused = await helm([
      'template',
      'muse',
      CHART,
      '-f',
      CI_VALUES[0]!,
      '--set',
      'worker.pools[0].name=x',
      '--set',
      'worker.pools[0].workloads=emails',
    ]);
    expect(refused.stderr).toMatch(/workloads/);
  });

  it('runs migrations as a hook only when asked', async () => {
    const manifests = await render([CI_VALUES[1]!]);
    const job = manifests.find((m) => m.kind === 'Job')!;
    expect(job.metadata!.annotations).toMatchObject({ 'helm.sh/hook': 'post-install,pre-upgrade' });
    expect(find(manifests, 'Secret', 'muse')!.data).toHaveProperty('jwt-secret');
  });

  it('with an ingress, trusts its proxies and keeps WebSockets and long polls open', async () => {
    const manifests = await render([CI_VALUES[2]!]);
    expect(find(manifests, 'ConfigMap', 'muse')!.data).toMatchObject({
      MUSE_TRUST_PROXY: '10.42.0.0/16',
      MUSE_CHAT_REALM_HOST: 'chat.example.com',
      MUSE_PUBLIC_URL: 'https://content.example.com',
    });
    const ingress = find(manifests, 'Ingress', 'muse')!;
    expect(ingress.metadata!.annotations).toMatchObject({
      'nginx.ingress.kubernetes.io/proxy-read-timeout': '3600',
    });
    expect(ingress.spec.rules.map((r: { host: string }) => r.host)).toEqual([
      'content.example.com',
      'chat.example.com',
      '*.chat.example.com',
    ]);
    expect(manifests.filter((m) => m.kind === 'HTTPRoute')).toHaveLength(2);
    expect(manifests.filter((m) => m.kind === 'HorizontalPodAutoscaler')).toHaveLength(3);
    expect(manifests.some((m) => m.kind === 'ClusterRole')).toBe(true);
    const policy = find(manifests, 'NetworkPolicy', 'muse-content-api')!;
    expect(policy.spec.ingress[0].from).toBeDefined();
  });

  it('ships the Grafana dashboard and the alerts only when asked, as in charts/muse/files/', async () => {
    const off = await render([CI_VALUES[0]!]);
    expect(off.filter((m) => m.kind === 'PrometheusRule' || m.metadata?.name === 'muse-dashboard')).toEqual(
      [],
    );

    const manifests = await render([CI_VALUES[2]!]);
    const dashboard = find(manifests, 'ConfigMap', 'muse-dashboard')!;
    // The label Grafana's dashboard sidecar selects by, and the folder annotation from the values.
    expect(dashboard.metadata!.labels).toMatchObject({ grafana_dashboard: '1' });
    expect(dashboard.metadata!.annotations).toEqual({ grafana_folder: 'Muse' });
    const file = (name: string) => readFile(path.join(CHART, 'files', name), 'utf8');
    expect(JSON.parse(dashboard.data['muse.json'])).toEqual(JSON.parse(await file('grafana-dashboard.json')));

    const rule = find(manifests, 'PrometheusRule', 'muse')!;
    expect(rule.metadata!.labels).toMatchObject({ release: 'prometheus' });
    expect(rule.spec).toEqual(parseYaml(await file('prometheus-rules.yaml')));
    expect(
      rule.spec.groups.flatMap((g: { rules: { alert: string }[] }) => g.rules.map((r) => r.alert)),
    ).toEqual([
      'MuseHighErrorRate',
      'MuseHighLatency',
      'MuseWorkflowFailures',
      'MuseGenerationFailureRate',
      'MuseDatabasePoolSaturated',
      'MuseReconcilerBacklog',
    ]);
  });

  it('with existing Secrets, renders no Secret and references every key', async () => {
    const manifests = await render([CI_VALUES[3]!]);
    expect(manifests.some((m) => m.kind === 'Secret')).toBe(false);
    expect(manifests.some((m) => m.kind === 'Job')).toBe(false);
    const env = find(manifests, 'Deployment', 'muse-worker')!.spec.template.spec.containers[0].env;
    expect(env).toEqual(
      expect.arrayContaining([
        { name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: 'muse-database', key: 'url' } } },
        { name: 'MUSE_JWT_SECRET', valueFrom: { secretKeyRef: { name: 'muse-auth', key: 'jwt' } } },
        {
          name: 'MUSE_S3_SECRET_ACCESS_KEY',
          valueFrom: { secretKeyRef: { name: 'muse-s3', key: 'secret-access-key' } },
        },
      ]),
    );
  });
});

describe('against the real API server', { timeout: 300_000 }, () => {
  it.each(CI_VALUES)('accepts every object rendered with %s (server-side dry run)', async (file) => {
    const manifests = await render([file]);
    const refused: string[] = [];
    for (const manifest of manifests) {
      const answer = await kube.send('POST', manifest, { dryRun: true });
      if (answer.status !== 201)
        refused.push(`${manifest.kind}/${manifest.metadata?.name}: ${answer.status} ${answer.body?.message}`);
    }
    expect(refused).toEqual([]);
  });

  it('evaluation.enabled alone renders a whole platform, Postgres and Temporal included, that the API server accepts', async () => {
    const manifests = await render([], ['--set', 'evaluation.enabled=true']);
    const sets = manifests.filter((m) => m.kind === 'StatefulSet');
    expect(sets.map((m) => m.metadata!.name).sort()).toEqual([
      'muse-evaluation-postgres',
      'muse-evaluation-temporal',
    ]);
    for (const set of sets) {
      expect(set.spec.replicas).toBe(1);
      expect(set.metadata!.annotations?.['muse.dev/evaluation']).toBe('not for production');
      expect(set.spec.volumeClaimTemplates[0].spec.resources.requests.storage).toMatch(/Gi$/);
    }
    expect(find(manifests, 'ConfigMap', 'muse')!.data.TEMPORAL_ADDRESS).toBe('muse-evaluation-temporal:7233');
    const env = find(manifests, 'Deployment', 'muse-content-api')!.spec.template.spec.containers[0].env;
    expect(env).toContainEqual({
      name: 'DATABASE_URL',
      value: 'postgres://muse:$(MUSE_DATABASE_PASSWORD)@muse-evaluation-postgres:5432/muse',
    });
    const secret = find(manifests, 'Secret', 'muse')!;
    expect(Object.keys(secret.data).sort()).toEqual([
      'evaluation-postgres-password',
      'jwt-secret',
      'secrets-key',
    ]);
    const refused: string[] = [];
    for (const manifest of manifests) {
      const answer = await kube.send('POST', manifest, { dryRun: true });
      if (answer.status !== 201)
        refused.push(`${manifest.kind}/${manifest.metadata?.name}: ${answer.status} ${answer.body?.message}`);
    }
    expect(refused).toEqual([]);
  });

  it('the dry run refuses what real Kubernetes refuses (an unknown field)', async () => {
    const [deployment] = (await render([CI_VALUES[0]!])).filter((m) => m.kind === 'Deployment');
    const answer = await kube.send(
      'POST',
      { ...deployment!, spec: { ...deployment!.spec, replicaz: 2 } } as Manifest,
      { dryRun: true },
    );
    expect(answer.status).toBe(400);
    expect(answer.body.message).toMatch(/unknown field "spec.replicaz"/);
  });

  it('installs and upgrades a release; the generated JWT secret and secrets key survive the upgrade', async () => {
    const values = [
      '-f',
      CI_VALUES[0]!,
      '--set',
      'auth.existingSecret=',
      '--set',
      'auth.generateJwtSecret=true',
      '--set',
      'auth.generateSecretsKey=true',
    ];
    const install = await helm(['install', 'muse', CHART, '--namespace', NAMESPACE, ...values]);
    expect(install.code, install.stderr).toBe(0);
    expect(install.stdout).toContain('STATUS: deployed');
    const secretBefore = await kube.kube.core.readNamespacedSecret({ name: 'muse', namespace: NAMESPACE });
    const deploymentBefore = await kube.kube.apps.readNamespacedDeployment({
      name: 'muse-content-api',
      namespace: NAMESPACE,
    });

    const upgrade = await helm([
      'upgrade',
      'muse',
      CHART,
      '--namespace',
      NAMESPACE,
      ...values,
      '--set',
      'config.logLevel=debug',
    ]);
    expect(upgrade.code, upgrade.stderr).toBe(0);
    expect(upgrade.stdout).toMatch(/REVISION: 2/);
    const secretAfter = await kube.kube.core.readNamespacedSecret({ name: 'muse', namespace: NAMESPACE });
    expect(secretAfter.data!['jwt-secret']).toBe(secretBefore.data!['jwt-secret']);
    expect(secretAfter.data!['secrets-key']).toBe(secretBefore.data!['secrets-key']);
    const deploymentAfter = await kube.kube.apps.readNamespacedDeployment({
      name: 'muse-content-api',
      namespace: NAMESPACE,
    });
    const checksum = (d: typeof deploymentAfter) =>
      d.spec!.template.metadata!.annotations!['checksum/config'];
    expect(checksum(deploymentAfter)).not.toBe(checksum(deploymentBefore));
    const status = await helm(['status', 'muse', '--namespace', NAMESPACE]);
    expect(status.stdout).toContain('STATUS: deployed');

    // The upgrade runbook's step for the CRDs, which `helm upgrade` never touches.
    const crds = await run(
      'kubectl',
      [
        'apply',
        '--server-side',
        '--force-conflicts',
        '-f',
        path.join(CHART, 'crds'),
        '--kubeconfig',
        kube.kubeconfigPath,
      ],
      { encoding: 'utf8' },
    );
    expect(crds.stdout).toMatch(/generators\.muse\.dev serverside-applied/);
  });
});
