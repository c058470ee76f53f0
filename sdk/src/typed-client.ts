import createClient, {
  type BodySerializer,
  type FetchResponse,
  type MaybeOptionalInit,
  type Middleware,
  type QuerySerializer,
} from 'openapi-fetch';
import type { HttpMethod, MediaType, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import type { CallOptions, Transport } from './transport/transport.ts';
import { REQUEST_ID_HEADER } from './transport/transport.ts';

// The generated `paths` is an interface whose absent methods are optional `never`s, so the
// per-path lookups below go through conditional types instead of a Record constraint.
type InitOf<Item, Method extends HttpMethod> = Method extends keyof Item
  ? MaybeOptionalInit<Item, Method>
  : never;
type OperationOf<Item, Method extends HttpMethod> = Method extends keyof Item ? Item[Method] : never;

/** The options of one call: openapi-fetch's `params`/`body`/`headers`, plus CallOptions. */
type InitParam<Init> = RequiredKeysOf<Init> extends never ? [(Init & CallOptions)?] : [Init & CallOptions];

/** A successful answer's parsed body (as typed by the document) and the raw Response. */
export interface Answer<Data> {
  data: Data;
  response: Response;
}

/** The 2xx body type of an operation. */
export type SuccessData<Operation, Init = object> =
  Operation extends Record<string | number, unknown>
    ? FetchResponse<Operation, Init, MediaType> extends infer Result
      ? Result extends { data: infer Data; error?: never }
        ? Data
        : never
      : never
    : never;

export type TypedMethod<Paths extends object, Method extends HttpMethod> = <
  Path extends PathsWithMethod<Paths, Method>,
  Init extends InitOf<Paths[Path], Method>,
>(
  path: Path,
  ...init: InitParam<Init>
) => Promise<Answer<SuccessData<OperationOf<Paths[Path], Method>, Init>>>;

/**
 * openapi-fetch's calling convention — `client.GET('/path/{id}', { params, body })` checked
 * against the generated `paths` — except that a call answers `{data, response}` and throws a
 * typed error instead of returning one, so `data` needs no narrowing.
 */
export interface TypedClient<Paths extends object> {
  GET: TypedMethod<Paths, 'get'>;
  POST: TypedMethod<Paths, 'post'>;
  PUT: TypedMethod<Paths, 'put'>;
  PATCH: TypedMethod<Paths, 'patch'>;
  DELETE: TypedMethod<Paths, 'delete'>;
  /** Adds openapi-fetch middleware (onRequest/onResponse/onError) to every call. */
  use(...middleware: Middleware[]): void;
}

export interface TypedClientOptions {
  baseUrl: string;
  transport: Transport;
  headers?: Record<string, string>;
  middleware: Middleware[];
  bodySerializer?: BodySerializer<unknown>;
  querySerializer?: QuerySerializer<unknown>;
}

/** One id per call, kept across its retries, so the server's logs and the SDK's errors name the same request. */
export const requestIdMiddleware: Middleware = {
  onRequest({ request }) {
    if (!request.headers.has(REQUEST_ID_HEADER)) request.headers.set(REQUEST_ID_HEADER, crypto.randomUUID());
  },
};

export function createTypedClient<Paths extends object>(options: TypedClientOptions): TypedClient<Paths> {
  const client = createClient<Paths>({
    baseUrl: options.baseUrl,
    fetch: options.transport,
    ...(options.headers ? { headers: options.headers } : {}),
    ...(options.bodySerializer ? { bodySerializer: options.bodySerializer } : {}),
    ...(options.querySerializer ? { querySerializer: options.querySerializer } : {}),
  });
  client.use(requestIdMiddleware, ...options.middleware);
  // The transport throws on every non-2xx answer, so openapi-fetch's result always has `data`.
  const method =
    (name: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE') => async (path: string, init?: object) => {
      const { data, response } = await (
        client[name] as (path: string, init?: object) => Promise<Answer<unknown>>
      )(path, init);
      return { data, response };
    };
  return {
    GET: method('GET') as TypedMethod<Paths, 'get'>,
    POST: method('POST') as TypedMethod<Paths, 'post'>,
    PUT: method('PUT') as TypedMethod<Paths, 'put'>,
    PATCH: method('PATCH') as TypedMethod<Paths, 'patch'>,
    DELETE: method('DELETE') as TypedMethod<Paths, 'delete'>,
    use: (...middleware) => client.use(...middleware),
  };
}
