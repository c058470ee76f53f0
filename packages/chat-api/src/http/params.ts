import { Ajv, type ValidateFunction } from 'ajv';
import type { Request } from 'express';
import { jsonTextProblem } from '@muse/core';
import { JsonableError, missingArgument } from './errors.ts';

const ajv = new Ajv({ allErrors: false, strict: false });

type Parser<T> = (raw: string, name: string) => T;

/** A JSON Schema (OpenAPI 3.1 dialect), as it appears in the served document. */
export type JsonSchema = Record<string, unknown>;

interface ParamSpec<T> {
  parse: Parser<T>;
  /** The value's schema once parsed; it documents the parameter. */
  schema: JsonSchema;
  /** Sent as JSON text (Zulip's encoding of lists, objects, integers and booleans in forms). */
  json: boolean;
  required: boolean;
  fallback?: T;
  /** Also read from this name (Zulip's legacy aliases, e.g. `subject` for `topic`). */
  alias?: string;
  description?: string;
}

/**
 * One declared parameter: how its form value is parsed, its JSON Schema, whether it is required,
 * and its default. Declared once per endpoint; `endpoint()` parses them all the same way Zulip's
 * typed endpoints do (integers and booleans as Zulip reads them, structured values as JSON) and
 * documents them in the OpenAPI operation.
 */
export class Param<T> {
  readonly spec: Readonly<ParamSpec<T>>;

  constructor(parse: Parser<T>, schema: JsonSchema, json = true) {
    this.spec = { parse, schema, json, required: true };
  }

  private with<U>(changes: Partial<ParamSpec<U>>): Param<U> {
    const next = Object.create(Param.prototype) as Param<U>;
    (next as { spec: ParamSpec<U> }).spec = { ...(this.spec as unknown as ParamSpec<U>), ...changes };
    return next;
  }

  get required(): boolean {
    return this.spec.required;
  }

  parse(raw: string, name: string): T {
    return this.spec.parse(raw, name);
  }

  optional(): Param<T | undefined> {
    return this.with<T | undefined>({ required: false, fallback: undefined });
  }

  default(value: T): Param<T> {
    return this.with<T>({ required: false, fallback: value });
  }

  aliased(alias: string): Param<T> {
    return this.with<T>({ alias });
  }

  describe(description: string): Param<T> {
    return this.with<T>({ description });
  }

  /** The parameter's schema as documented: its description and default included. */
  documentedSchema(): JsonSchema {
    const { schema, fallback, description } = this.spec;
    return {
      ...schema,
      ...(description ? { description } : {}),
      ...(fallback !== undefined ? { default: fallback } : {}),
    };
  }
}

function parseInt32(raw: string, name: string): number {
  // Zulip accepts an optional sign and digits, surrounded by nothing else.
  if (!/^\s*-?\d+\s*$/.test(raw)) throw new JsonableError(`${name} is not an integer`);
  const value = Number(raw);
  if (!Number.isSafeInteger(value)) throw new JsonableError(`${name} is too large`);
  return value;
}

function parseBool(raw: string, name: string): boolean {
  // Booleans are JSON text in Zulip's API; zulip-js sends the same "true"/"false".
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new JsonableError(`${name} is not a boolean`);
}

/**
 * JSON text validated against a JSON Schema. Leniency beyond Zulip: when the text is not JSON
 * and the schema wants an array, a comma-joined list (what zulip-js puts in query strings) is
 * accepted, each item read as JSON when it parses and as a string otherwise.
 */
function jsonParser<T>(schema: object): Parser<T> {
  const validate: ValidateFunction = ajv.compile(schema);
  const wantsArray = (schema as { type?: unknown }).type === 'array';
  return (raw, name) => {
    // NUL characters cannot be stored, and deep nesting only costs: refused before parsing.
    const problem = jsonTextProblem(raw);
    if (problem) throw new JsonableError(`${name} ${problem}`);
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      // Text that looks like JSON but is not stays an error; only a bare list gets the leniency.
      if (!wantsArray || /^\s*[[{"]/.test(raw)) throw new JsonableError(`${name} is not valid JSON`);
      value = raw === '' ? [] : raw.split(',').map(parseListItem);
    }
    if (wantsArray && !Array.isArray(value) && (typeof value === 'number' || typeof value === 'string')) {
      value = [value];
    }
    if (!validate(value)) {
      const error = validate.errors?.[0];
      const where = error?.instancePath
        ? `${name}${error.instancePath.replace(/\/(\d+)/g, '[$1]').replace(/\//g, '.')}`
        : name;
      throw new JsonableError(`Invalid ${where}: ${error?.message ?? 'bad value'}`);
    }
    return value as T;
  };
}

function parseListItem(item: string): unknown {
  try {
    return JSON.parse(item);
  } catch {
    return item;
  }
}

export const p = {
  /** Plain text (not JSON-encoded). */
  string: (options: { maxLength?: number; nonEmpty?: boolean } = {}) =>
    new Param<string>(
      (raw, name) => {
        if (raw.includes('\u0000')) throw new JsonableError(`${name} contains NULL (0x00) characters.`);
        if (options.nonEmpty && raw.trim() === '') throw new JsonableError(`${name} cannot be blank.`);
        if (options.maxLength !== undefined && [...raw].length > options.maxLength) {
          throw new JsonableError(`${name} is too long (limit: ${options.maxLength} characters)`);
        }
        return raw;
      },
      {
        type: 'string',
        ...(options.maxLength !== undefined ? { maxLength: options.maxLength } : {}),
        ...(options.nonEmpty ? { minLength: 1 } : {}),
      },
      false,
    ),
  int: () => new Param<number>(parseInt32, { type: 'integer' }),
  /** An id in a URL path: digits only, as Zulip's URL patterns read them. */
  id: () =>
    new Param<number>(
      (raw, name) => {
        if (!/^\d+$/.test(raw)) throw new JsonableError(`Invalid ${name}`);
        return Number(raw);
      },
      { type: 'integer', minimum: 0 },
      false,
    ),
  /** A plain string restricted to the given values. */
  oneOf: <T extends string>(values: readonly T[]) =>
    new Param<T>(
      (raw, name) => {
        if (!(values as readonly string[]).includes(raw))
          throw new JsonableError(`Invalid ${name}: must be one of ${values.join(', ')}`);
        return raw as T;
      },
      { type: 'string', enum: values },
      false,
    ),
  bool: () => new Param<boolean>(parseBool, { type: 'boolean' }),
  /** JSON text validated against `schema` (which also documents it). */
  json: <T>(schema: JsonSchema) => new Param<T>(jsonParser<T>(schema), schema),
};

export type Declared = Record<string, Param<unknown>>;
export type Parsed<D extends Declared> = { [K in keyof D]: D[K] extends Param<infer T> ? T : never };

/** Form body (urlencoded or multipart) and query string, the body winning, as Zulip merges them. */
function requestValues(req: Request): Map<string, string> {
  const values = new Map<string, string>();
  for (const source of [req.query, (req.body ?? {}) as Record<string, unknown>]) {
    for (const [key, value] of Object.entries(source)) {
      if (typeof value === 'string') values.set(key, value);
      else if (Array.isArray(value) && typeof value.at(-1) === 'string')
        values.set(key, value.at(-1) as string);
    }
  }
  return values;
}

/**
 * Parses the declared parameters: those named in `pathNames` from the URL path, the others from
 * the form and query string. Unknown form/query names are reported, never rejected.
 */
export function parseParams<D extends Declared>(
  req: Request,
  declared: D,
  pathNames: ReadonlySet<string> = new Set(),
): { params: Parsed<D>; ignored: string[] } {
  const values = requestValues(req);
  const known = new Set<string>();
  const params: Record<string, unknown> = {};
  for (const [name, param] of Object.entries(declared)) {
    const { alias, fallback } = param.spec;
    known.add(name);
    if (alias) known.add(alias);
    const raw = pathNames.has(name)
      ? req.params[name]
      : (values.get(name) ?? (alias ? values.get(alias) : undefined));
    if (typeof raw !== 'string') {
      if (param.required) throw missingArgument(name);
      params[name] = fallback;
    } else {
      params[name] = param.parse(raw, name);
    }
  }
  const ignored = [...values.keys()].filter((name) => !known.has(name));
  return { params: params as Parsed<D>, ignored };
}
