import type { Reporter, TestModule } from 'vitest/node';

/** Ends the run with the plain closing line CI reads: `tests: N passed, N failed, N skipped`. */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      let failedTests = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') failedTests++;
        else counts.skipped++;
      }
      // A file that failed with no failed test (its setup or import broke, so its tests were
      // skipped or never collected) is one failure: it must not hide behind "skipped".
      counts.failed += module.state() === 'failed' ? Math.max(failedTests, 1) : failedTests;
    }
    process.stdout.write(
      `\ntests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`,
    );
  }
}
