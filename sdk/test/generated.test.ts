import { describe, expect, it } from 'vitest';
import { staleGeneratedTypes } from '../scripts/generated-types.ts';

describe('sdk/src/generated', () => {
  it(
    'is what openapi-typescript makes of the documents the servers serve now',
    { timeout: 120_000 },
    async () => {
      // On failure: npm run generate -w @muse/sdk, and commit the result.
      expect(await staleGeneratedTypes()).toEqual([]);
    },
  );
});
