import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { GENERATED_FILE, generateOpenApiTypes } from '../src/generated/generate.ts';

describe('types generated from the contract', () => {
  it('src/generated/openapi.ts is what openapi-typescript makes of the served document (npm run generate -w @muse/content-api)', async () => {
    expect(await readFile(GENERATED_FILE, 'utf8')).toBe(await generateOpenApiTypes());
  });
});
