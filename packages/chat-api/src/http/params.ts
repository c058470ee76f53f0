import { Ajv, type ValidateFunction } from 'ajv';
import type { Request, RequestHandler, Response } from 'express';
import { JsonableError, missingArgument } from './errors.ts';

const ajv = new Ajv({ allErrors: false, strict: false });

type Parser<T> = (raw: string, name: string) => T;

/**
 * One declared parameter: how its form value is parsed, whether it is required, and its
 * default. Declared once per endpoint; `endpoint()` parses them all the same way Zulip's
 * typed endpoints do (integers and booleans as Zulip reads them, structured values as JSON).
 */
export class Param<T> {
  readonly parse: Parser<T>;
  readonly required: boolean;
  readonly fallback: T | undefined;
  /** Also read from this name (Zulip's legacy aliases, e.g. `subject` for `topic`). */
  readonly alias: string | undefined;

  constructor(parse: Parser<T>, required = true, fallback?: T, alias?: string) {
    this.parse = parse;
    this.required = required;
    this.fallback = fallback;
    this.alias = alias;
  }

  optional(): Param<T | undefined> {
    return new Param<T | undefined>(this.parse, false, undefined, this.alias);
  }

  default(value: T): Param<T> {
    return new Param(this.parse, false, value, this.alias);
  }

  aliased(alias: string): Param<T> {
    return new Param(this.parse, this.required, this.fallback, alias);
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
  string: (options: { maxLength?: number; nonEmpty?: boolean } = {}) =>
    new Param<string>((raw, name) => {
      if (raw.includes('\u0000')) throw new JsonableError(`${name} contains NULL (0x00) characters.`);
      if (options.nonEmpty && raw.trim() === '') throw new JsonableError(`${name} cannot be blank.`);
      if (options.maxLength !== undefined && [...raw].length > options.maxLength) {
        throw new JsonableError(`${name} is too long (limit: ${options.maxLength} characters)`);
      }
      return raw;
    }),
  int: () => new Param<number>(parseInt32),
  /** A plain string restricted to the given values. */
  oneOf: <T extends string>(values: readonly T[]) =>
    new Param<T>((raw, name) => {
      if (!(values as readonly string[]).includes(raw))
        throw new JsonableError(`Invalid ${name}: must be one of ${values.join(', ')}`);
      return raw as T;
    }),
  bool: () => new Param<boolean>(parseBool),
  json: <T>(schema: object) => new Param<T>(jsonParser<T>(schema)),
};

type Declared = Record<string, Param<unknown>>;
type Parsed<D extends Declared> = { [K in keyof D]: D[K] extends Param<infer T> ? T : never };

/** What a view returns: extra success fields, merged into `{result, msg}`. */
export type ViewResult = Record<string, unknown> | void;

/** Form body (urlencoded or multipart) and query string, the body winning, as Zulip merges them. */
function requestValues(req: Request): Map<string, string> {
  const values = new Map<string, string>();
  for (const [key, value] of Object.entries(req.query)) {
    if (typeof value === 'string') values.set(key, value);
    else if (Array.isArray(value) && typeof value.at(-1) === 'string')
      values.set(key, value.at(-1) as string);
  }
  const body = (req.body ?? {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(body)) {
    if (typeof value === 'string') values.set(key, value);
    else if (Array.isArray(value) && typeof value.at(-1) === 'string')
      values.set(key, value.at(-1) as string);
  }
  return values;
}

/** Parses the declared parameters; unknown names are reported, never rejected. */
export function parseParams<D extends Declared>(
  req: Request,
  declared: D,
): { params: Parsed<D>; ignored: string[] } {
  const values = requestValues(req);
  const known = new Set<string>();
  const params: Record<string, unknown> = {};
  for (const [name, param] of Object.entries(declared)) {
    known.add(name);
    if (param.alias) known.add(param.alias);
    const raw = values.get(name) ?? (param.alias ? values.get(param.alias) : undefined);
    if (raw === undefined) {
      if (param.required) throw missingArgument(name);
      params[name] = param.fallback;
    } else {
      params[name] = param.parse(raw, name);
    }
  }
  const ignored = [...values.keys()].filter((name) => !known.has(name));
  return { params: params as Parsed<D>, ignored };
}

/**
 * Wraps a view: parses its declared parameters, runs it, and sends the success envelope
 * (with `ignored_parameters_unsupported` when the request carried names it does not know).
 */
export function endpoint<D extends Declared, C>(
  declared: D,
  context: (req: Request, res: Response) => C,
  view: (params: Parsed<D>, ctx: C, req: Request) => Promise<ViewResult> | ViewResult,
): RequestHandler {
  return async (req, res, next) => {
    try {
      const { params, ignored } = parseParams(req, declared);
      const data = (await view(params, context(req, res), req)) ?? {};
      if (res.headersSent) return;
      const body: Record<string, unknown> = { result: 'success', msg: '', ...data };
      if (ignored.length > 0) body.ignored_parameters_unsupported = ignored;
      res.json(body);
    } catch (error) {
      next(error);
    }
  };
}

/** Reads an integer path parameter the way Zulip's URL patterns do (digits only). */
export function pathInt(req: Request, name: string): number {
  const raw = req.params[name];
  if (typeof raw !== 'string' || !/^\d+$/.test(raw)) throw new JsonableError(`Invalid ${name}`);
  return Number(raw);
}
