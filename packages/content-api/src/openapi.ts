import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/** The content service's contract, loaded once: served at /openapi.json and used to validate requests. */
export const openapiDocument: Record<string, unknown> = parse(
  readFileSync(new URL('../openapi.yaml', import.meta.url), 'utf8'),
);
