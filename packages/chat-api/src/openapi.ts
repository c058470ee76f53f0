import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/** The messaging API's contract, served at /openapi.json. */
export const openapiDocument: Record<string, unknown> = parse(
  readFileSync(new URL('../openapi.yaml', import.meta.url), 'utf8'),
);
