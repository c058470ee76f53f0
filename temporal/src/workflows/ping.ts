import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';

const { databaseTime } = proxyActivities<Activities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});

/**
 * A round trip through the whole durable stack: the workflow runs on a worker and calls an
 * activity that reads the database. `muse-server` uses nothing else from it; it proves the
 * wiring (and the test suite checks it).
 */
export async function pingWorkflow(message: string): Promise<{ message: string; databaseTime: string }> {
  return { message, databaseTime: await databaseTime() };
}
