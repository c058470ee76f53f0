import {
  createFinalURL,
  createQuerySerializer,
  defaultBodySerializer,
  defaultPathSerializer,
  mergeHeaders,
  type BodySerializer,
  type FetchResponse,
  type HeadersOptions,
  type MaybeOptionalInit,
  type QuerySerializer,
  type QuerySerializerOptions,
} from 'openapi-fetch';
import type { HttpMethod, MediaType, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import type { CallOptions, OutgoingRequest, Transport } from './transport/transport.ts';

// The generated `paths` is an interface whose absent methods are optional `never`s, so the
// per-path lookups below go through conditional types instead of a Record constraint.
type InitOf<Item, Method extends HttpMethod> = Method extends keyof Item
  ? MaybeOptionalInit<Item, Method>
  : never;
type OperationOf<Item, Method extends HttpMethod> = Method extends keyof Item ? Item[Method] : never;

/** The options of one call: openapi-fetch's `params`/`body`/`headers`/serializers, plus CallOptions. */
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
}

export interface TypedClientOptions {
  baseUrl: string;
  transport: Transport;
  headers?: Record<string, string>;
  bodySerializer?: BodySerializer<unknown>;
  querySerializer?: QuerySerializer<unknown>;
}

interface UntypedInit extends CallOptions {
  params?: { path?: Record<string, unknown>; query?: Record<string, unknown>; header?: HeadersOptions };
  body?: unknown;
  headers?: HeadersOptions;
  bodySerializer?: BodySerializer<unknown>;
  querySerializer?: QuerySerializer<unknown> | QuerySerializerOptions;
  parseAs?: OutgoingRequest['parseAs'];
}

/**
 * The request is built with openapi-fetch's own serializers (same URLs, bodies and headers as
 * its client), then handed to our transport as URL and init: no Request object is made per
 * call, and the answer is parsed once, inside the transport's timeout.
 */
export function createTypedClient<Paths extends object>(options: TypedClientOptions): TypedClient<Paths> {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const defaultQuerySerializer = options.querySerializer ?? createQuerySerializer();
  const call =
    (method: string) =>
    (path: string, init: UntypedInit = {}) => {
      const { params = {}, body, headers, signal, timeout, maxRetries, parseAs } = init;
      const querySerializer =
        typeof init.querySerializer === 'function'
          ? init.querySerializer
          : init.querySerializer
            ? createQuerySerializer(init.querySerializer)
            : defaultQuerySerializer;
      const url = createFinalURL(path, {
        baseUrl,
        params,
        querySerializer,
        pathSerializer: defaultPathSerializer,
      });
      const callHeaders = mergeHeaders(options.headers, headers, params.header);
      const serializer = (init.bodySerializer ?? options.bodySerializer ?? defaultBodySerializer) as (
        body: unknown,
        headers: Headers,
      ) => RequestInit['body'];
      const serialized = body === undefined ? undefined : serializer(body, callHeaders);
      // Like openapi-fetch: a string body is JSON unless the caller said otherwise; fetch labels forms itself.
      if (typeof serialized === 'string' && !callHeaders.has('content-type'))
        callHeaders.set('Content-Type', 'application/json');
      return options.transport({
        url,
        method,
        headers: callHeaders,
        body: serialized,
        signal,
        timeout,
        maxRetries,
        parseAs,
      });
    };
  return {
    GET: call('GET') as TypedMethod<Paths, 'get'>,
    POST: call('POST') as TypedMethod<Paths, 'post'>,
    PUT: call('PUT') as TypedMethod<Paths, 'put'>,
    PATCH: call('PATCH') as TypedMethod<Paths, 'patch'>,
    DELETE: call('DELETE') as TypedMethod<Paths, 'delete'>,
  };
}
