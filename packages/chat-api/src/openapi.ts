import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { documentRequestId } from '@muse/core';
import { endpointPaths } from './http/operations.ts';
import { chatAreas, chatEndpoints } from './views/index.ts';
import { chatSchemas } from './views/schemas.ts';

type Document = Record<string, unknown> & {
  paths: Record<string, unknown>;
  components: Record<string, Record<string, unknown>>;
};

/**
 * The messaging API's contract, served at /openapi.json: `openapi.yaml` holds what no declaration
 * carries (info, security, the platform endpoints, the error envelope and shared responses); every
 * /api/v1 operation and the shared records come from the endpoint declarations.
 */
export function buildOpenApiDocument(): Document {
  const document = parse(readFileSync(new URL('../openapi.yaml', import.meta.url), 'utf8')) as Document;
  // The messaging operations first; the platform's probes and this document (openapi.yaml) last.
  const platformPaths = document.paths;
  document.paths = endpointPaths(chatEndpoints);
  for (const [path, item] of Object.entries(platformPaths)) {
    if (path in document.paths) throw new Error(`${path} is both in openapi.yaml and declared`);
    document.paths[path] = item;
  }
  document.tags = [
    // Several view modules may share a tag: the first one's description names it.
    ...chatAreas
      .filter((area, i) => chatAreas.findIndex((other) => other.tag === area.tag) === i)
      .map(({ tag, description }) => ({ name: tag, description })),
    ...((document.tags as object[] | undefined) ?? []),
  ];
  const schemas = (document.components.schemas ??= {});
  for (const [name, schema] of Object.entries(chatSchemas)) {
    if (name in schemas) throw new Error(`components.schemas.${name} is both in openapi.yaml and declared`);
    schemas[name] = schema;
  }
  return documentRequestId(document);
}

export const openapiDocument = buildOpenApiDocument();
