export { createTemporalClient, temporalSecurity, type TemporalSecurity } from './client.ts';
export {
  createWorker,
  bundleWorkflows,
  writeWorkflowBundles,
  workflowBundleFile,
  workflowsPath,
  type WorkerOptions,
  type MuseWorker,
} from './worker.ts';
export { createActivities, type Activities, type ActivityDeps } from './activities/index.ts';
