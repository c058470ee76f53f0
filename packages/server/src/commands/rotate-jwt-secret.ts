import { createKube, loadKubeConfig, rotateJwtSecret } from '@muse/operator';

export interface RotateCommandOptions {
  namespace: string;
  secret: string;
  key: string;
  release?: string;
  selector?: string;
  wait: boolean;
  timeout: string;
  kubeconfig?: string;
}

/** `muse-server rotate-jwt-secret`: see the chart README's runbook. Needs no database. */
export async function runRotateJwtSecret(options: RotateCommandOptions): Promise<void> {
  const selector =
    options.selector ??
    (options.release
      ? `app.kubernetes.io/instance=${options.release},app.kubernetes.io/component in (content-api,chat-api,worker)`
      : undefined);
  if (!selector) throw new Error('Name the Helm release (--release) or the Deployments (--selector)');
  const result = await rotateJwtSecret({
    kube: createKube(loadKubeConfig(options.kubeconfig)),
    namespace: options.namespace,
    secretName: options.secret,
    key: options.key,
    selector,
    wait: options.wait,
    timeoutMs: Number(options.timeout) * 1000,
    log: (message) => console.error(message),
  });
  console.log(JSON.stringify(result));
}
