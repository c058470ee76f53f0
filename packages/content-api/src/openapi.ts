import { readFileSync, readdirSync } from 'node:fs';
import { parse } from 'yaml';
import { documentRequestId } from '@muse/core';
import { OPERATION_METHODS } from './http/operation.ts';
import { resourcesOpenApi } from './resources/index.ts';

const folder = new URL('../openapi/', import.meta.url);

type Document = Record<string, unknown> & {
  paths: Record<string, unknown>;
  components: Record<string, Record<string, unknown>>;
};

/**
 * The content service's contract. `openapi/openapi.yaml` holds the document's frame and shared
 * components; each API area keeps its paths and schemas in `openapi/<area>.yaml` beside it.
 * The resources' paths and schemas are generated from their declarations (src/resources) and
 * join the same merge. They are merged into one document, which is served at /openapi.json, validates requests,
 * and generates the SDK's types. A name defined twice is an error, not a silent override.
 */
export function loadOpenApiDocument(generated: Partial<Document>[] = [resourcesOpenApi()]): Document {
  const document = parse(readFileSync(new URL('openapi.yaml', folder), 'utf8')) as Document;
  const areas = readdirSync(folder)
    .filter((file) => file.endsWith('.yaml') && file !== 'openapi.yaml')
    .sort();
  const fragments = [
    ...areas.map((file) => ({
      source: file,
      fragment: parse(readFileSync(new URL(file, folder), 'utf8')) as Partial<Document>,
    })),
    ...generated.map((fragment, index) => ({ source: `generated fragment ${index + 1}`, fragment })),
  ];
  for (const { source, fragment } of fragments) mergeFragment(document, fragment, source);
  return documentRequestId(documentCommonErrors(operationsLast(document)));
}

/** The operators' tag: probes and this document, which readers of the reference want last. */
const OPERATIONS_TAG = 'operations';

/** Moves the operators' tag, and the paths whose operations carry it, to the end of the document. */
function operationsLast(document: Document): Document {
  const tags = document.tags as { name: string }[];
  document.tags = [
    ...tags.filter((tag) => tag.name !== OPERATIONS_TAG),
    ...tags.filter((tag) => tag.name === OPERATIONS_TAG),
  ];
  const isOperators = (item: unknown) =>
    Object.values(item as Record<string, { tags?: string[] }>).some((operation) =>
      operation?.tags?.includes(OPERATIONS_TAG),
    );
  const paths = Object.entries(document.paths);
  document.paths = Object.fromEntries([
    ...paths.filter(([, item]) => !isOperators(item)),
    ...paths.filter(([, item]) => isOperators(item)),
  ]);
  return document;
}

const errorAnswer = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

/**
 * The answers every operation can give, documented on each: 503 (a saturated database); behind a
 * bearer token, 403 (a banned or disabled account, whatever the operation); with a body, 400 (not
 * JSON) and 415 (not the documented media type); with parameters or a body, 422 (a value the
 * schema refuses, e.g. a malformed id in the path).
 */
function documentCommonErrors(document: Document): Document {
  type Operation = {
    responses?: Record<string, unknown>;
    requestBody?: unknown;
    parameters?: unknown[];
    security?: unknown[];
  };
  const authenticatedByDefault = ((document as { security?: unknown[] }).security ?? []).length > 0;
  for (const item of Object.values(document.paths) as Record<string, Operation>[]) {
    const shared = (item as { parameters?: unknown[] }).parameters;
    for (const method of OPERATION_METHODS) {
      const operation = item[method];
      const responses = operation?.responses;
      if (!operation || !responses) continue;
      responses['503'] ??= { $ref: '#/components/responses/Overloaded' };
      if (operation.security ? operation.security.length > 0 : authenticatedByDefault)
        responses['403'] ??= { $ref: '#/components/responses/Forbidden' };
      if (operation.requestBody) {
        responses['400'] ??= errorAnswer('The request body is not valid JSON.');
        responses['415'] ??= errorAnswer('The request body is not of a documented media type.');
      }
      if (operation.requestBody || operation.parameters?.length || shared?.length)
        responses['422'] ??= { $ref: '#/components/responses/ValidationFailed' };
    }
  }
  return document;
}

function mergeFragment(document: Document, fragment: Partial<Document>, source: string): void {
  // A path's operations may come from two places (a resource's generated list beside an area's
  // POST); an operation defined twice is still an error.
  for (const [path, item] of Object.entries(fragment.paths ?? {})) {
    document.paths[path] ??= {};
    mergeInto(
      document.paths[path] as Record<string, unknown>,
      item as Record<string, unknown>,
      `${source}: ${path}`,
    );
  }
  for (const [section, entries] of Object.entries(fragment.components ?? {})) {
    document.components[section] ??= {};
    mergeInto(document.components[section], entries, `${source}: components.${section}`);
  }
  // Two fragments may share a tag (an area's operations beside a resource's): the first one's
  // description names it, so the reference shows one group.
  const tags = document.tags as { name: string }[];
  for (const tag of (fragment.tags ?? []) as { name: string }[])
    if (!tags.some((known) => known.name === tag.name)) tags.push(tag);
}

function mergeInto(target: Record<string, unknown>, source: Record<string, unknown>, where: string): void {
  for (const [key, value] of Object.entries(source)) {
    if (key in target) throw new Error(`${where} ${key} is defined twice in the OpenAPI document`);
    target[key] = value;
  }
}

let served: Document | undefined;

/**
 * The document the API serves and validates against, built on first use: processes that never
 * serve it (worker, operator) do not pay for reading and merging the YAML when they import the package.
 */
export function contentOpenApiDocument(): Document {
  served ??= loadOpenApiDocument();
  return served;
}
