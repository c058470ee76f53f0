import path from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import base from '../../vitest.config.ts';

// The browser tests (headless Chromium), with the suite's own setup and reporters:
// `npx vitest run --config test/browser/vitest.config.ts` (.ci/docs.sh).
export default defineConfig({
  ...base,
  root: path.resolve(import.meta.dirname, '../..'),
  test: { ...base.test, include: ['test/browser/**/*.test.ts'], exclude: configDefaults.exclude },
});
