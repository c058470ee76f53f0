import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import { parse } from 'yaml';

/**
 * Zulip's own OpenAPI document (release 10.2, feature level 372), kept in this package's test
 * fixtures with its license notice. It is reference data for conformance: responses are validated
 * against its 200 schemas.
 */
const REFERENCE = fileURLToPath(new URL('./fixtures/zulip/zulip-openapi.yaml', import.meta.url));
type Doc = {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>
  >;
};
let doc: Doc | undefined;
const compiled = new Map<string, ValidateFunction>();

/**
 * Fields this server sends that the reference (feature level 372) does not know yet because
 * they appeared later (our spec describes up to level 420). They are dropped before validating.
 */
const NEWER_FIELDS = new Set([
  'is_imported_stub',
  'topics_policy',
  'can_delete_any_message_group',
  'can_delete_own_message_group',
  'max_stream_name_length',
  'max_stream_description_length',
  'max_message_length',
  'max_topic_length',
  'has_videocall_token',
]);
/** Endpoints where the limits above are documented (register) keep them. */
const KEEP_LIMITS = new Set(['/register']);

/** OpenAPI 3.0 → JSON Schema: `nullable: true` becomes a union with null; refs resolve against the document. */
function convert(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(convert);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'example' || key === 'examples' || key === 'description') continue;
    out[key] =
      key === 'properties'
        ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, convert(v)]))
        : convert(value);
  }
  if (out.nullable === true) {
    delete out.nullable;
    return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}

function strip(value: unknown, keepLimits: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => strip(v, keepLimits));
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (NEWER_FIELDS.has(k) && !(keepLimits && k.startsWith('max_'))) continue;
    out[k] = strip(v, keepLimits);
  }
  return out;
}

function validator(path: string, method: string, status: string): ValidateFunction {
  const key = `${method} ${path} ${status}`;
  const found = compiled.get(key);
  if (found) return found;
  doc ??= parse(readFileSync(REFERENCE, 'utf8')) as Doc;
  let response = doc.paths[path]?.[method]?.responses[status] as
    { $ref?: string; content?: Record<string, { schema: unknown }> } | undefined;
  if (response?.$ref) {
    const name = response.$ref.split('/').at(-1) ?? '';
    response = (doc as unknown as { components: { responses: Record<string, typeof response> } }).components
      .responses[name];
  }
  const schema = response?.content?.['application/json']?.schema;
  if (!schema) throw new Error(`no ${status} schema for ${key} in the reference`);
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addSchema({ components: convert((doc as unknown as { components: unknown }).components) }, 'zulip');
  const rewritten = JSON.parse(
    JSON.stringify(convert(schema)).replace(/"#\/components\//g, '"zulip#/components/'),
  );
  const validate = ajv.compile(rewritten as object);
  compiled.set(key, validate);
  return validate;
}

/** Throws with ajv's errors unless `body` matches the reference schema of the endpoint's response. */
export function expectZulipSchema(path: string, method: string, body: unknown, status = '200'): void {
  const validate = validator(path, method, status);
  if (!validate(strip(body, KEEP_LIMITS.has(path)))) {
    throw new Error(
      `${method.toUpperCase()} ${path} does not match Zulip's schema: ${JSON.stringify(validate.errors?.slice(0, 5), null, 1)}`,
    );
  }
}

/** Throws unless `body` matches one of the reference's component schemas, e.g. `NonExistingChannelIdError`. */
export function expectZulipComponent(name: string, body: unknown): void {
  doc ??= parse(readFileSync(REFERENCE, 'utf8')) as Doc;
  let validate = compiled.get(name);
  if (!validate) {
    const ajv = new Ajv({ strict: false, allErrors: true });
    ajv.addSchema({ components: convert((doc as unknown as { components: unknown }).components) }, 'zulip');
    validate = ajv.compile({ $ref: `zulip#/components/schemas/${name}` });
    compiled.set(name, validate);
  }
  if (!validate(body))
    throw new Error(`not Zulip's ${name}: ${JSON.stringify(validate.errors?.slice(0, 5))}`);
}

/** For endpoints the reference does not describe (they are in our spec only): Zulip's plain success object. */
export function expectZulipSuccess(body: unknown): void {
  expectZulipComponent('JsonSuccess', body);
}

/**
 * The keys Zulip's `/register` documents as present when `type` is in `fetch_event_types`
 * ("Present if `type` is present in `fetch_event_types`"), read from the reference.
 */
export function documentedRegisterKeys(type: string): string[] {
  doc ??= parse(readFileSync(REFERENCE, 'utf8')) as Doc;
  const schema = doc.paths['/register']?.post?.responses['200']?.content?.['application/json']?.schema as {
    allOf?: { properties?: Record<string, { description?: string }> }[];
  };
  const keys: string[] = [];
  for (const part of schema.allOf ?? [])
    for (const [key, value] of Object.entries(part.properties ?? {}))
      if (
        new RegExp(`Present if \`${type}\` is present in\\s+\`fetch_event_types\``).test(
          value.description ?? '',
        )
      )
        keys.push(key);
  return keys;
}
