import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { ValidationError } from '@muse/core';

export type GenerationKind = 'image' | 'video' | 'text';
export const GENERATION_KINDS: readonly GenerationKind[] = ['image', 'video', 'text'];

const uuid = { type: 'string', format: 'uuid' };
const prompt = { type: 'string', minLength: 1, maxLength: 4000 };

/**
 * The parameters a generator accepts when an administrator gives none: the spec's generic
 * fields per kind, with bounds that keep a task's cost and size predictable.
 */
export function defaultParametersSchema(kind: GenerationKind): Record<string, unknown> {
  const common = { generator_id: uuid, prompt };
  const properties: Record<GenerationKind, Record<string, unknown>> = {
    image: {
      ...common,
      aspect_ratio: { type: 'string', pattern: '^[1-9][0-9]{0,2}:[1-9][0-9]{0,2}$', default: '1:1' },
      count: { type: 'integer', minimum: 1, maximum: 4, default: 1 },
    },
    video: {
      ...common,
      duration: { type: 'integer', minimum: 1, maximum: 30, default: 5 },
      reference_file_ids: { type: 'array', items: uuid, maxItems: 4, uniqueItems: true, default: [] },
    },
    text: common,
  };
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    required: ['generator_id', 'prompt'],
    properties: properties[kind],
    additionalProperties: false,
  };
}

/**
 * The most result files one task may make, whatever a generator's own schema allows: the count
 * sizes the pending file rows written at submission, so it must be bounded here.
 */
export const MAX_RESULTS_PER_TASK = 10;

/** How many result files a task makes; 422 naming `/count` outside 1 to MAX_RESULTS_PER_TASK. */
export function resultCount(kind: GenerationKind, params: Record<string, unknown>): number {
  if (kind !== 'image' || params.count === undefined) return 1;
  const count = params.count;
  if (!Number.isInteger(count) || (count as number) < 1 || (count as number) > MAX_RESULTS_PER_TASK) {
    throw new ValidationError('The parameters do not match the generator schema', [
      { path: '/count', message: `must be an integer from 1 to ${MAX_RESULTS_PER_TASK}` },
    ]);
  }
  return count as number;
}

const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false });
addFormats.default(ajv);
const compiled = new Map<string, ValidateFunction>();

/** Throws a 422 naming the problem when `schema` is not a usable JSON Schema. */
export function assertValidSchema(schema: unknown): void {
  try {
    ajv.compile(schema as object);
  } catch (error) {
    throw new ValidationError('parameters_schema is not a valid JSON Schema', [
      { path: '/parameters_schema', message: (error as Error).message },
    ]);
  }
}

/**
 * Validates a request body against a generator's schema and returns it with the schema's
 * defaults filled in; 422 lists every failing path. Compiled schemas are cached by `cacheKey`
 * (the generator id and its update time), so an edited schema takes effect at once.
 */
export function validateParameters(cacheKey: string, schema: object, body: unknown): Record<string, unknown> {
  let validate = compiled.get(cacheKey);
  if (!validate) {
    validate = ajv.compile(schema);
    if (compiled.size > 500) compiled.clear();
    compiled.set(cacheKey, validate);
  }
  const copy = structuredClone(body);
  if (validate(copy)) return copy as Record<string, unknown>;
  throw new ValidationError(
    'The parameters do not match the generator schema',
    (validate.errors ?? []).map((error) => ({
      path: error.instancePath || '/',
      message: error.message ?? 'is not valid',
      ...(error.keyword === 'additionalProperties'
        ? {
            path: `${error.instancePath}/${(error.params as { additionalProperty: string }).additionalProperty}`,
          }
        : {}),
    })),
  );
}
