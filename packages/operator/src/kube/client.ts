import {
  ApiException,
  AppsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  Watch,
  setHeaderOptions,
} from '@kubernetes/client-node';

/** The API clients the operator and `rotate-jwt-secret` use, from one kubeconfig. */
export interface Kube {
  config: KubeConfig;
  core: CoreV1Api;
  apps: AppsV1Api;
  coordination: CoordinationV1Api;
  custom: CustomObjectsApi;
  watch: Watch;
}

/** In a pod: its service account; elsewhere: KUBECONFIG or ~/.kube/config. */
export function loadKubeConfig(kubeconfigPath?: string): KubeConfig {
  const config = new KubeConfig();
  if (kubeconfigPath) config.loadFromFile(kubeconfigPath);
  else config.loadFromDefault();
  return config;
}

export function createKube(config: KubeConfig): Kube {
  return {
    config,
    core: config.makeApiClient(CoreV1Api),
    apps: config.makeApiClient(AppsV1Api),
    coordination: config.makeApiClient(CoordinationV1Api),
    custom: config.makeApiClient(CustomObjectsApi),
    watch: new Watch(config),
  };
}

/** Request options for a JSON merge patch (the generated clients default to JSON patch). */
export const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export function statusCode(error: unknown): number | undefined {
  if (error instanceof ApiException) return error.code;
  const code = (error as { code?: unknown; statusCode?: unknown })?.statusCode;
  return typeof code === 'number' ? code : undefined;
}

export const isNotFound = (error: unknown) => statusCode(error) === 404;
export const isConflict = (error: unknown) => statusCode(error) === 409;
