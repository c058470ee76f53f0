import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { contentOpenApiDocument } from '../openapi.ts';

/** The committed output: TypeScript types of the content API's own served document. */
export const GENERATED_FILE = fileURLToPath(new URL('./openapi.ts', import.meta.url));

const HEADER =
  "// Generated from the content API's OpenAPI document (the one served at /openapi.json) by\n" +
  '// `npm run generate -w @muse/content-api`; do not edit. A test fails when it is out of date.\n\n';

/** The types file for the current document, as openapi-typescript writes it. */
export async function generateOpenApiTypes(): Promise<string> {
  // A copy: openapi-typescript must not touch the document the server uses.
  const ast = await openapiTS(structuredClone(contentOpenApiDocument()) as never, {
    alphabetize: true,
    emptyObjectsUnknown: true,
    // A field with a default is optional in a schema reused by request bodies (e.g. `enabled`).
    defaultNonNullable: false,
  });
  return HEADER + astToString(ast);
}

/** `node generate.ts` writes the file; `--check` exits 1 when the committed one differs. */
async function main(check: boolean): Promise<void> {
  const generated = await generateOpenApiTypes();
  const committed = await readFile(GENERATED_FILE, 'utf8').catch(() => '');
  if (check) {
    if (committed !== generated) {
      console.error(`${GENERATED_FILE} is out of date: run npm run generate -w @muse/content-api`);
      process.exitCode = 1;
    }
    return;
  }
  if (committed !== generated) await writeFile(GENERATED_FILE, generated);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main(process.argv.includes('--check'));
