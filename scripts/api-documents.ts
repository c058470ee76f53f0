// Writes the documents the APIs serve — content.openapi.json, chat.openapi.json and
// content.asyncapi.json, as /openapi.json and /asyncapi.json answer them — into a folder, for
// linters and other tools that read files: `node scripts/api-documents.ts <folder>`.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { asyncapiDocument, contentOpenApiDocument } from '@muse/content-api';
import { openapiDocument as chatDocument } from '@muse/chat-api';

const folder = process.argv[2];
if (!folder) {
  console.error('usage: node scripts/api-documents.ts <folder>');
  process.exit(2);
}
mkdirSync(folder, { recursive: true });
const documents = {
  'content.openapi.json': contentOpenApiDocument(),
  'chat.openapi.json': chatDocument,
  'content.asyncapi.json': asyncapiDocument(),
};
for (const [name, document] of Object.entries(documents))
  writeFileSync(path.join(folder, name), `${JSON.stringify(document, null, 2)}\n`);
