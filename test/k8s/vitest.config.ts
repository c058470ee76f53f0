import { defineConfig } from 'vitest/config';

// The cluster suite (.ci/k8s.sh): one file, in order, against the node tools/k8s/node.sh started.
export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/k8s/*.e2e.ts'],
    pool: 'forks',
    maxWorkers: 1,
    sequence: { concurrent: false },
    bail: 1,
    testTimeout: 900_000,
    hookTimeout: 300_000,
  },
});
