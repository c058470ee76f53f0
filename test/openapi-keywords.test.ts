import { describe, expect, it } from 'vitest';
import { contentOpenApiDocument } from '@muse/content-api';
import { openapiDocument as chatDocument } from '@muse/chat-api';

/**
 * JSON Schema ignores keywords it does not know, so a YAML slip (an unquoted description with a
 * `: ` in it turning into a stray key) passes every validator silently. This walks each schema of
 * the served documents and refuses any key that is not a JSON Schema 2020-12 / OpenAPI 3.1 keyword
 * or an `x-` extension.
 */
const KEYWORDS = new Set([
  // core and applicator
  ...['$schema', '$id', '$ref', '$defs', '$comment', '$anchor', '$dynamicRef', '$dynamicAnchor'],
  ...['allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', 'dependentSchemas', 'prefixItems', 'items'],
  ...['contains', 'properties', 'patternProperties', 'additionalProperties', 'propertyNames'],
  ...['unevaluatedItems', 'unevaluatedProperties'],
  // validation
  ...['type', 'enum', 'const', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum'],
  ...['maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'maxContains'],
  ...['minContains', 'maxProperties', 'minProperties', 'required', 'dependentRequired'],
  // format, content, meta-data
  ...['format', 'contentEncoding', 'contentMediaType', 'contentSchema', 'title', 'description', 'default'],
  ...['deprecated', 'readOnly', 'writeOnly', 'examples'],
  // OpenAPI 3.1 vocabulary
  ...['discriminator', 'xml', 'externalDocs', 'example'],
]);
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];
const SUBSCHEMAS = [
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
];
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];

function strayKeywords(schema: unknown, where: string, found: string[]): void {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return;
  const object = schema as Record<string, unknown>;
  for (const key of Object.keys(object))
    if (!KEYWORDS.has(key) && !key.startsWith('x-')) found.push(`${where}: ${JSON.stringify(key)}`);
  for (const key of SUBSCHEMA_MAPS)
    for (const [name, sub] of Object.entries((object[key] ?? {}) as Record<string, unknown>))
      strayKeywords(sub, `${where}.${key}.${name}`, found);
  for (const key of SUBSCHEMAS) strayKeywords(object[key], `${where}.${key}`, found);
  for (const key of SUBSCHEMA_LISTS)
    ((object[key] ?? []) as unknown[]).forEach((sub, i) =>
      strayKeywords(sub, `${where}.${key}[${i}]`, found),
    );
}

/** Every schema a document holds: components, parameters, request bodies and answers. */
function schemasOf(document: Record<string, unknown>): [string, unknown][] {
  const out: [string, unknown][] = [];
  const visit = (value: unknown, where: string): void => {
    if (typeof value !== 'object' || value === null) return;
    if (Array.isArray(value)) return value.forEach((item, i) => visit(item, `${where}[${i}]`));
    for (const [key, sub] of Object.entries(value as Record<string, unknown>)) {
      if (key === 'schema') out.push([`${where}.schema`, sub]);
      else visit(sub, `${where}.${key}`);
    }
  };
  visit(document.paths, 'paths');
  const components = (document.components ?? {}) as Record<string, Record<string, unknown>>;
  for (const [name, schema] of Object.entries(components.schemas ?? {}))
    out.push([`components.schemas.${name}`, schema]);
  for (const section of ['parameters', 'responses', 'requestBodies', 'headers'])
    visit(components[section], `components.${section}`);
  return out;
}

describe('the served OpenAPI documents', () => {
  it.each([
    ['content', contentOpenApiDocument()],
    ['messaging', chatDocument],
  ])('%s: every schema key is a JSON Schema / OpenAPI 3.1 keyword or an x- extension', (_name, document) => {
    const found: string[] = [];
    for (const [where, schema] of schemasOf(document as Record<string, unknown>))
      strayKeywords(schema, where, found);
    expect(found).toEqual([]);
  });
});
