import { createRequire } from 'node:module';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { error as validatorErrors } from 'express-openapi-validator';
import { operationKey, type RequestOperation } from './operation.ts';

/**
 * Request validation by express-openapi-validator's own request validator (its ajv schemas, its
 * coercion and its 400/404/405 errors, so every answer stays the library's), with the operation
 * found once per request from a table instead of the library's metadata step, which compiles and
 * tries every documented route in turn on every request (express-openapi-validator 5.6).
 *
 * The table keeps the library's rules: routes in its order (`sortRoutes`: most specific first),
 * matched by path alone with its path-to-regexp and the app's case and trailing-slash settings;
 * a path that matches but not for this method is 405, no path 404, a param that does not decode 400.
 * An operation with no parameters and no body is only checked for unknown query parameters, so
 * it skips the validator when the query is empty (the validator would accept such a request).
 * The operation authentication resolved for the request (`operationOf`) is taken as it is when
 * the library's rules could not pick another one: its route matches the path and no route
 * before it in the library's order could match any path it matches. Only the other requests
 * (a path no operation has, a method its path lacks) are looked up in the table.
 *
 * It loads the library's internal modules, so the library is pinned to one version in
 * package.json; test/request-validation.test.ts compares every answer with the stock middleware.
 */

const validatorRequire = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
type Handler = (req: Request, res: Response, next: NextFunction) => void;
type Schema = Record<string, unknown> & { parameters?: unknown[]; requestBody?: unknown };
interface SpecRoute {
  basePath: string;
  expressRoute: string;
  openApiRoute: string;
  method: string;
}
interface Spec {
  apiDoc: {
    paths: Record<string, Record<string, Schema> & { parameters?: unknown[] }>;
    components?: { parameters?: Record<string, unknown> };
  };
  basePaths: string[];
  routes: SpecRoute[];
  serial: number;
}
interface Validator {
  options: { validateApiSpec: boolean; $refParser: unknown; validateResponses: unknown };
  ajvOpts: { preprocessor: unknown };
  requestValidationMiddleware(apiDoc: Spec['apiDoc']): Handler;
}
const { OpenApiValidator } = validatorRequire('./openapi.validator') as {
  OpenApiValidator: new (options: object) => Validator;
};
const { OpenApiSpecLoader } = validatorRequire('./framework/openapi.spec.loader') as {
  OpenApiSpecLoader: new (options: object) => { load(): Promise<Spec> };
};
const { SchemaPreprocessor } = validatorRequire('./middlewares/parsers/schema.preprocessor') as {
  SchemaPreprocessor: new (
    apiDoc: object,
    ajvOptions: unknown,
    responses: unknown,
  ) => { preProcess(): unknown };
};
const { pathToRegexp } = validatorRequire('path-to-regexp') as {
  pathToRegexp: (
    path: string,
    options: { sensitive: boolean; strict: boolean },
  ) => { regexp: RegExp; keys: { name: string }[] };
};

interface Route {
  expressRoute: string;
  openApiRoute: string;
  regexp: RegExp;
  keys: string[];
  /** By upper-case method: the operation's schema, whether it takes any input, and how it is named. */
  methods: Map<string, { schema: Schema; hasInput: boolean; queryOnly: boolean; operation: OperationName }>;
}

/** A documented operation as validatedOperation names it. */
export interface OperationName {
  /** Its method and the document's path (operationKey). */
  key: string;
  /** The path as a router pattern, `/api/v1/users/:id`. */
  expressRoute: string;
}

/** The documented operation a request was validated for, with its decoded path values. */
export interface ValidatedOperation extends OperationName {
  params: Record<string, string>;
}

/** Where a request keeps the operation it was validated for: a property, not a WeakMap entry per request. */
const VALIDATED = Symbol('validated operation');
type WithValidated = Request & { [VALIDATED]?: ValidatedOperation };

/** The operation validateRequests matched for the request (and let through), if any. */
export function validatedOperation(req: Request): ValidatedOperation | undefined {
  return (req as WithValidated)[VALIDATED];
}

/** The request validator's options, as express-openapi-validator's `middleware()` takes them. */
export interface RequestValidationOptions {
  apiSpec: object;
  validateRequests: { allowUnknownQueryParameters: boolean };
}

export function validateRequests(
  options: RequestValidationOptions,
  operationOf: RequestOperation,
): RequestHandler {
  const validator = new OpenApiValidator({
    ...options,
    validateResponses: false,
    validateSecurity: false,
    fileUploader: false,
  });
  const loaded = new OpenApiSpecLoader({
    apiDoc: structuredClone(options.apiSpec),
    validateApiSpec: validator.options.validateApiSpec,
    $refParser: validator.options.$refParser,
  })
    .load()
    .then((spec) => {
      new SchemaPreprocessor(spec.apiDoc, validator.ajvOpts.preprocessor, false).preProcess();
      return { spec, validate: validator.requestValidationMiddleware(spec.apiDoc) };
    });
  let ready: ((req: Request, res: Response, next: NextFunction) => void) | undefined;
  return (req, res, next) => {
    if (ready) return ready(req, res, next);
    loaded.then(({ spec, validate }) => {
      ready ??= validation(
        spec,
        validate,
        operationOf,
        req.app.enabled('case sensitive routing'),
        req.app.enabled('strict routing'),
      );
      ready(req, res, next);
    }, next);
  };
}

function validation(
  spec: Spec,
  validate: Handler,
  operationOf: RequestOperation,
  sensitive: boolean,
  strict: boolean,
): Handler {
  const { lookup, unshadowed } = routeTable(spec, sensitive, strict);
  const validQueries = new ValidQueries();
  return (req, res, next) => {
    const path = req.originalUrl.split('?')[0]!;
    if (!spec.basePaths.some((basePath) => path.startsWith(basePath))) return next();
    try {
      const resolved = operationOf(req);
      const first = resolved && unshadowed.get(resolved.key);
      const route = first?.regexp.test(path) ? first : lookup(path);
      if (!route) throw new validatorErrors.NotFound({ path: req.path, message: 'not found' });
      // As the library does: path values decoded (or refused) before the method is looked at.
      const pathParams = paramsOf(route, path, req.path);
      const operation = route.methods.get(req.method);
      if (!operation)
        throw new validatorErrors.MethodNotAllowed({
          path: req.path,
          message: `${req.method} method not allowed`,
          headers: { Allow: [...route.methods.keys()].join(', ') },
        });
      req.params = pathParams;
      (req as WithValidated)[VALIDATED] = { ...operation.operation, params: pathParams };
      if (!operation.hasInput && isEmpty(req.query)) return next();
      // What the library's metadata step would have put on the request for its validator (only it reads it).
      Object.assign(req, {
        openapi: {
          expressRoute: route.expressRoute,
          openApiRoute: route.openApiRoute,
          pathParams,
          schema: operation.schema,
          serial: spec.serial,
        },
      });
      if (operation.queryOnly && req.body === undefined)
        return validQueries.validate(operation.operation.key, validate, req, res, next);
      validate(req, res, next);
    } catch (error) {
      next(error);
    }
  };
}

/**
 * Routes bucketed by their number of path segments (a route only matches paths with as many), in
 * the library's order (`lookup`); and by operation key, the routes no earlier route overlaps
 * (`unshadowed`): for any path such a route matches, the library picks it.
 */
function routeTable(
  spec: Spec,
  sensitive: boolean,
  strict: boolean,
): { lookup: (path: string) => Route | undefined; unshadowed: Map<string, Route> } {
  const routes = new Map<string, Route>();
  for (const { basePath, expressRoute, openApiRoute, method } of spec.routes) {
    let route = routes.get(expressRoute);
    if (!route) {
      const { regexp, keys } = pathToRegexp(expressRoute, { sensitive, strict });
      const names = keys.map((key) => key.name);
      route = { expressRoute, openApiRoute, regexp, keys: names, methods: new Map() };
      routes.set(expressRoute, route);
    }
    const path = openApiRoute.substring(basePath.length);
    const item = spec.apiDoc.paths[path]!;
    const schema = item[method.toLowerCase()] as Schema;
    const parameters = [...(item.parameters ?? []), ...(schema.parameters ?? [])];
    const hasInput = Boolean(schema.requestBody) || parameters.length > 0;
    const queryOnly =
      !schema.requestBody &&
      parameters.length > 0 &&
      parameters.every((parameter) => resolve(spec, parameter)?.in === 'query');
    route.methods.set(method, {
      schema,
      hasInput,
      queryOnly,
      operation: { key: operationKey(method, path), expressRoute },
    });
  }
  const buckets = new Map<number, Route[]>();
  for (const route of routes.values()) {
    const count = segments(route.expressRoute);
    buckets.set(count, [...(buckets.get(count) ?? []), route]);
  }
  // A literal route no route before it could take is found by its path (`/users/me`), confirmed by its regexp.
  const literal = new Map<string, Route>();
  const unshadowed = new Map<string, Route>();
  for (const bucket of buckets.values())
    bucket.forEach((route, i) => {
      const earlier = bucket.slice(0, i);
      if (!route.keys.length && !earlier.some((before) => before.regexp.test(route.expressRoute)))
        literal.set(route.expressRoute.toLowerCase(), route);
      if (!earlier.some((before) => overlap(before.expressRoute, route.expressRoute)))
        for (const { operation } of route.methods.values()) unshadowed.set(operation.key, route);
    });
  const lookup = (path: string) => {
    const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const hit = literal.get(trimmed.toLowerCase());
    if (hit?.regexp.test(path)) return hit;
    return buckets.get(segments(path))?.find((route) => route.regexp.test(path));
  };
  return { lookup, unshadowed };
}

/**
 * Whether some path could match both router patterns (as many segments, each pair equal in any
 * letter case or either one holding a parameter). Errs towards yes: a parameter may be part of a
 * segment, and a case-sensitive app's differently cased segments never both match.
 */
function overlap(a: string, b: string): boolean {
  const first = a.split('/');
  const second = b.split('/');
  return (
    first.length === second.length &&
    first.every(
      (part, i) =>
        part.includes(':') || second[i]!.includes(':') || part.toLowerCase() === second[i]!.toLowerCase(),
    )
  );
}

function segments(path: string): number {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  let count = 0;
  for (let i = 0; i < trimmed.length; i++) if (trimmed.charCodeAt(i) === 47) count++;
  return count;
}

function paramsOf(route: Route, path: string, requestPath: string): Record<string, string> {
  if (!route.keys.length) return {};
  const values = route.regexp.exec(path)!.slice(1);
  try {
    return Object.fromEntries(route.keys.map((name, i) => [name, decodeURIComponent(values[i]!)]));
  } catch {
    throw new validatorErrors.BadRequest({ path: requestPath, message: `malformed uri'` });
  }
}

function isEmpty(query: object): boolean {
  for (const _ in query) return false;
  return true;
}

/** A parameter as declared, or the component its `$ref` names (undefined when it names none). */
function resolve(spec: Spec, parameter: unknown): { in?: string } | undefined {
  const ref = (parameter as { $ref?: string }).$ref;
  if (ref === undefined) return parameter as { in?: string };
  const name = /^#\/components\/parameters\/([^/]+)$/.exec(ref)?.[1];
  return name === undefined ? undefined : (spec.apiDoc.components?.parameters?.[name] as { in?: string });
}

/**
 * The query strings each operation whose only input is its query (a list) accepted, with the
 * query the validator made of each (values coerced to their types). Its answer depends on
 * nothing else, and clients repeat the same few (a list's pages), so an accepted one is not
 * validated again; a refused one always is, for the validator's own error.
 */
class ValidQueries {
  static readonly LIMIT = 1000;
  readonly #accepted = new Map<string, Record<string, unknown>>();

  validate(operation: string, validator: Handler, req: Request, res: Response, next: NextFunction): void {
    const key = `${operation}?${req.originalUrl.slice(req.originalUrl.indexOf('?') + 1)}`;
    const accepted = this.#accepted.get(key);
    if (accepted) {
      // As the validator leaves it: an own, writable `query` (Express 5's is a getter).
      Object.defineProperty(req, 'query', { value: copyQuery(accepted), writable: true });
      return next();
    }
    validator(req, res, (error?: unknown) => {
      if (error === undefined) {
        if (this.#accepted.size >= ValidQueries.LIMIT) this.#accepted.clear();
        this.#accepted.set(key, copyQuery(req.query));
      }
      next(error);
    });
  }
}

/** A query object's copy, nested values included, with its prototype (Express's has none). */
function copyQuery(query: Record<string, unknown>): Record<string, unknown> {
  const copy = Object.create(Object.getPrototypeOf(query) as object | null) as Record<string, unknown>;
  for (const [name, value] of Object.entries(query))
    copy[name] = typeof value === 'object' && value !== null ? structuredClone(value) : value;
  return copy;
}
