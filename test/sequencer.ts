import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The test files that need the Go tools (tools/k8s, tools/otelcol), by path from the root. */
const NEED_GO_TOOLS = [
  'test/chart.test.ts',
  'test/tracing.test.ts',
  'packages/operator/test/operator.test.ts',
  'packages/operator/test/processes.test.ts',
];

/**
 * Vitest's order (longest or largest first), except that while `npm test`'s preflight builds the
 * Go tools in the background (MUSE_TOOLS_BUILD_PID), the files that need them run last: the build
 * has the whole run to finish, and they rarely wait for it.
 */
export default class GoToolsLastSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    if (!process.env.MUSE_TOOLS_BUILD_PID) return sorted;
    const needsTools = (file: TestSpecification) =>
      NEED_GO_TOOLS.some((name) => file.moduleId.endsWith(`/${name}`));
    return [...sorted.filter((file) => !needsTools(file)), ...sorted.filter(needsTools)];
  }
}
