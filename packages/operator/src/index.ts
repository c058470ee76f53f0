export { startOperator, FINALIZER, type OperatorOptions, type RunningOperator } from './operator.ts';
export { createOperatorMetrics, type OperatorMetrics } from './metrics.ts';
export { createKube, loadKubeConfig, mergePatch, type Kube } from './kube/client.ts';
export { rotateJwtSecret, type RotateOptions, type RotateResult } from './rotate.ts';
export { customResourceDefinition, CRD_KINDS } from './resources/crds.ts';
export * from './resources/schemas.ts';
