import type { GenerationSteps } from '@muse/content-api/workflow-steps';
import { asActivity } from './failures.ts';

/**
 * The steps of a generation task. Thin on purpose: each hands off to the content service's
 * generation steps (packages/content-api/src/generations/steps.ts), which own the task's state,
 * its files and their events; here their errors become the failures Temporal retries or not.
 */
export function createGenerationActivities(steps: GenerationSteps) {
  return {
    beginGeneration: (taskId: string) => asActivity(() => steps.beginGeneration(taskId)),
    submitUpstream: (taskId: string) => asActivity(() => steps.submitUpstream(taskId)),
    generateInProcess: (taskId: string) => asActivity(() => steps.generateInProcess(taskId)),
    pollUpstream: (taskId: string, upstreamId: string) =>
      asActivity(() => steps.pollUpstream(taskId, upstreamId)),
    completeGeneration: (...args: Parameters<GenerationSteps['completeGeneration']>) =>
      asActivity(() => steps.completeGeneration(...args)),
    cancelUpstream: (taskId: string, upstreamId: string) =>
      asActivity(() => steps.cancelUpstream(taskId, upstreamId)),
    failAndRefundGeneration: (...args: Parameters<GenerationSteps['failAndRefundGeneration']>) =>
      asActivity(() => steps.failAndRefundGeneration(...args)),
  };
}

export type GenerationActivities = ReturnType<typeof createGenerationActivities>;
