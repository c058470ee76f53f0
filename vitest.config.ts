import { configDefaults, defineConfig } from 'vitest/config';
import GoToolsLastSequencer from './test/sequencer.ts';

export default defineConfig({
  test: {
    include: [
      'packages/*/test/**/*.test.ts',
      'cli/test/**/*.test.ts',
      'temporal/test/**/*.test.ts',
      'test/**/*.test.ts',
      'sdk/test/**/*.test.ts',
    ],
    // Tests in a real browser run on their own (.ci/docs.sh, which installs Chromium).
    exclude: [...configDefaults.exclude, 'test/browser/**'],
    globalSetup: ['test/global-setup.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
    sequence: { sequencer: GoToolsLastSequencer },
    // One real Postgres and one Temporal dev server serve the whole run; files isolate by database and task queue.
    pool: 'forks',
    // A request holds one pooled connection at a time: the suites run with a pool of one per
    // database handle, and a second acquisition inside an open transaction throws.
    env: { MUSE_STRICT_TRANSACTIONS: '1' },
    // Three files at once on two cores: most files spend their time waiting (on Temporal timers,
    // spawned processes, deliveries due), so a third overlaps those waits (the CPU-bound ones run slower).
    maxWorkers: 3,
    // Generous: tests wait on readiness, and CI machines can be busy; a stuck test still ends.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
