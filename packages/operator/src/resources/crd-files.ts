import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { stringify } from 'yaml';
import { CRD_KINDS, crdFileName, customResourceDefinition } from './crds.ts';

export const CHART_CRD_DIR = fileURLToPath(new URL('../../../../charts/muse/crds', import.meta.url));

/** The chart's CRD files as they should be: path and YAML text. */
export function renderCrdFiles(): { path: string; content: string }[] {
  return CRD_KINDS.map((kind) => ({
    path: path.join(CHART_CRD_DIR, crdFileName(kind)),
    content: `# Generated from packages/operator/src/resources/schemas.ts by \`npm run crds -w @muse/operator\`; do not edit.\n${stringify(customResourceDefinition(kind))}`,
  }));
}
