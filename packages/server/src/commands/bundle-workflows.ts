import { writeWorkflowBundles } from '@muse/temporal';

/** Writes the workflow bundles a worker loads under MUSE_WORKFLOW_BUNDLE_DIR (the image's build runs it). */
export async function runBundleWorkflows(dir: string): Promise<void> {
  for (const file of await writeWorkflowBundles(dir)) console.log(`wrote ${file}`);
}
