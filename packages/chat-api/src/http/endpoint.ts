import { Router, type Request, type RequestHandler } from 'express';
import { requestLog } from '@muse/core';
import type { Actor } from '../domain/context.ts';
import type { ChatRuntime, ViewContext } from '../views/context.ts';
import { authenticate } from './auth.ts';
import { BODY_LIMITS, readForm } from './body.ts';
import { limitUserWrites } from './user-rate-limit.ts';
import { parseParams, type Declared, type JsonSchema, type Parsed } from './params.ts';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** What a view returns: the success fields beside `result` and `msg`. */
export type ViewResult = Record<string, unknown> | void;

/** Error answers an operation may give besides 400, by status; each names a shared response in openapi.yaml. */
export const ERROR_RESPONSES = {
  400: 'Error',
  401: 'Unauthorized',
  404: 'NotFound',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  429: 'RateLimited',
  431: 'HeadersTooLarge',
  503: 'Unavailable',
} as const;
export type ErrorStatus = keyof typeof ERROR_RESPONSES;

/**
 * One messaging endpoint, declared once: the route, the parameters (parsed and validated from the
 * form, query string and path), and the OpenAPI operation with its request and response schemas
 * all come from this declaration.
 */
export interface EndpointDeclaration<D extends Declared, Public extends boolean> {
  /** One method, or several serving the same view (Zulip's PATCH beside our POST). */
  method: Method | readonly Method[];
  /** Below /api/v1, OpenAPI-style: `/users/{user_id}/reactivate`; `{name}` is a declared parameter. */
  path: string;
  operationId: string;
  /** The OpenAPI tag: set for a whole view module by its area (views/index.ts), not here. */
  tag?: string;
  summary: string;
  description?: string;
  /** No Basic auth (the view receives the runtime instead of the caller). */
  public?: Public;
  params?: D;
  /**
   * Takes one file part (multipart), of at most this many bytes for the caller (capped by
   * BODY_LIMITS.fileBytes); the view reads it with `uploadedFiles`. Without it a file part is refused.
   */
  fileLimit?: (actor: Actor) => number;
  /**
   * The success answer's own fields, as an object schema (`properties`, `required`); `result`, `msg`
   * and `ignored_parameters_unsupported` are added. No other field may be sent unless it says
   * `additionalProperties`.
   */
  response?: JsonSchema;
  /**
   * The success answer is a 302 to the `Location` this describes (a browser follows it), not
   * Zulip's JSON envelope; the view sends it with `res.redirect`.
   */
  redirect?: string;
  /** Error statuses beyond 400 (and 401, implied when not public). */
  errors?: readonly ErrorStatus[];
  /**
   * One call as a client makes it, shown on the reference page ("Try it out" starts from it) and
   * made against the live API in CI (test/reference-pages-chat-examples.test.ts): the parameters
   * (path ones too; a JSON-encoded one as its value) and the success answer's own fields, or for
   * an operation that redirects, the `Location` it answers.
   */
  example?: { params?: { [K in keyof D]?: unknown }; response?: Record<string, unknown>; location?: string };
  view: (
    params: Parsed<D>,
    ctx: Public extends true ? ChatRuntime : ViewContext,
    req: Request,
  ) => Promise<ViewResult> | ViewResult;
}

/** A declaration with its types erased, as routes and the document read it. */
export type Endpoint = EndpointDeclaration<Declared, boolean>;

/** Declares an endpoint; the result goes into its area's list (see views/index.ts). */
export function endpoint<D extends Declared = Record<never, never>, Public extends boolean = false>(
  declaration: EndpointDeclaration<D, Public>,
): Endpoint {
  return declaration as unknown as Endpoint;
}

export const methodsOf = (e: Endpoint): readonly Method[] =>
  typeof e.method === 'string' ? [e.method] : e.method;

/** Names in `{…}` of an OpenAPI path template. */
export const pathParameterNames = (path: string): Set<string> =>
  new Set([...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string));

/** The router serving `endpoints` under /api/v1, literal paths before templated ones. */
export function endpointRouter(endpoints: readonly Endpoint[], runtime: ChatRuntime): Router {
  const router = Router();
  const auth = authenticate(runtime.db, runtime.config);
  const limit = limitUserWrites(runtime);
  const ordered = [...endpoints].sort((a, b) => Number(a.path.includes('{')) - Number(b.path.includes('{')));
  for (const declared of ordered) {
    const route = declared.path.replace(/\{([^}]+)\}/g, ':$1');
    const handlers = declared.public
      ? [handler(declared, runtime)]
      : [auth, limit, handler(declared, runtime)];
    for (const method of methodsOf(declared)) router[method](route, ...handlers);
  }
  return router;
}

/**
 * Reads the body within its budget (only now: the route is known and, unless public, its caller),
 * parses the declared parameters, runs the view, and sends the success envelope (with
 * `ignored_parameters_unsupported` when the request carried names the endpoint does not know).
 */
function handler(declared: Endpoint, runtime: ChatRuntime): RequestHandler {
  const pathNames = pathParameterNames(declared.path);
  // Zulip's URL patterns match ids as digits only: any other segment is another (unknown) URL.
  const idNames = [...pathNames].filter((name) => declared.params?.[name]?.spec.schema.minimum === 0);
  return async (req, res, next) => {
    if (idNames.some((name) => !/^\d+$/.test(String(req.params[name])))) {
      next();
      return;
    }
    try {
      const actor = res.locals.actor as Actor | undefined;
      const fileLimit =
        declared.fileLimit && actor && Math.min(declared.fileLimit(actor), BODY_LIMITS.fileBytes);
      await readForm(req, res, fileLimit);
      const { params, ignored } = parseParams(req, declared.params ?? {}, pathNames);
      // The view's log lines name the request.
      const requestRuntime = { ...runtime, logger: requestLog(res, runtime.logger) };
      const ctx = declared.public ? requestRuntime : ({ ...actor, runtime: requestRuntime } as ViewContext);
      const data = (await declared.view(params, ctx, req)) ?? {};
      if (res.headersSent) return;
      const body: Record<string, unknown> = { result: 'success', msg: '', ...data };
      if (ignored.length > 0) body.ignored_parameters_unsupported = ignored;
      res.json(body);
    } catch (error) {
      next(error);
    }
  };
}
