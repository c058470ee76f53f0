import http from 'node:http';
import os from 'node:os';
import { createDatabase, createLogger, onShutdownSignal, type Config } from '@muse/core';
import { createKube, createOperatorMetrics, loadKubeConfig, startOperator } from '@muse/operator';
import { requireSetting } from '../runtime.ts';

export interface OperatorCommandOptions {
  namespace: string[];
  leaseName: string;
  leaseNamespace?: string;
  identity?: string;
  resyncSeconds: string;
  leaseDurationSeconds: string;
  metricsPort: string;
  kubeconfig?: string;
}

/**
 * `muse-server operator`: reconciles Generator, VerificationCodeProvider and ChatOrganization
 * resources into the platform's database while holding the leader Lease; serves /metrics,
 * /healthz and /readyz on its metrics port.
 */
export async function runOperator(config: Config, options: OperatorCommandOptions): Promise<void> {
  const logger = createLogger(config, 'operator');
  const db = createDatabase(requireSetting(config, 'DATABASE_URL'), logger, {
    poolMax: config.MUSE_DB_POOL_MAX ?? 4,
    transactionPooler: config.MUSE_DB_TRANSACTION_POOLER,
  });
  const kube = createKube(loadKubeConfig(options.kubeconfig));
  const namespaces = options.namespace.length ? options.namespace : [process.env.POD_NAMESPACE ?? 'default'];
  const metrics = createOperatorMetrics({ processMetrics: true });
  const operator = startOperator({
    kube,
    db,
    config,
    logger,
    namespaces,
    leaseName: options.leaseName,
    leaseNamespace:
      options.leaseNamespace ?? process.env.POD_NAMESPACE ?? namespaces.find((n) => n !== '*') ?? 'default',
    identity: options.identity ?? process.env.POD_NAME ?? `${os.hostname()}-${process.pid}`,
    resyncSeconds: Number(options.resyncSeconds),
    leaseDurationSeconds: Number(options.leaseDurationSeconds),
    metrics,
  });
  const server = http.createServer((req, res) => {
    void (async () => {
      if (req.url === '/metrics') {
        res.setHeader('content-type', metrics.registry.contentType);
        return res.end(await metrics.registry.metrics());
      }
      if (req.url === '/healthz') return res.end('ok');
      if (req.url === '/readyz') {
        const ok = await db.query('SELECT 1').then(
          () => true,
          () => false,
        );
        res.statusCode = ok ? 200 : 503;
        return res.end(ok ? 'ok' : 'database unreachable');
      }
      res.statusCode = 404;
      res.end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(Number(options.metricsPort), config.MUSE_HOST, resolve));
  const address = server.address() as { port: number };
  logger.info({ namespaces, metricsPort: address.port }, 'operator running');
  onShutdownSignal(logger, async () => {
    await operator.stop();
    server.close();
    await db.close();
  });
}
