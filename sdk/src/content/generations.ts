import type { components, paths } from '../generated/content.ts';
import type { CallOptions } from '../transport/transport.ts';
import type { TypedClient } from '../typed-client.ts';

export type GenerationKind = 'images' | 'videos' | 'texts';

/** The document's body of `POST /api/v1/generations/{kind}`: the generic fields, open to others. */
type DocumentedRequest<Kind extends GenerationKind> =
  paths[`/api/v1/generations/${Kind}`]['post']['requestBody']['content']['application/json'];

/** A type's named fields, without its index signature. */
type NamedFields<T> = { [K in keyof T as string extends K ? never : K]: T[K] };

/**
 * The generic fields of a generation request, closed (a misspelt field does not compile) and with
 * `prompt` required, as the built-in schema of every kind has it. The API body stays open for a
 * generator's own parameters: give those as `parameters` in the options, checked by the
 * generator's schema (`GET /api/v1/generations/schemas`) on the server.
 */
export type GenerationRequest<Kind extends GenerationKind> = NamedFields<DocumentedRequest<Kind>> & {
  prompt: string;
};

/**
 * A submit that waited (`wait`): `completed` or `failed` with the finished file records, or
 * `pending` (no records) when the wait ran out first; follow the ids with `files.waitFor` then.
 */
export type GenerationResult =
  | components['schemas']['GenerationResult']
  | (components['schemas']['GenerationResponse'] & { files?: undefined });

/** The longest wait the server honours (`Prefer: wait=60`). */
export const MAX_GENERATION_WAIT_SECONDS = 60;

export interface CreateOptions extends CallOptions {
  idempotencyKey?: string;
  /** The generator's own parameters (its schema's other fields), sent beside the generic ones. */
  parameters?: Record<string, unknown>;
}

export interface GenerationHelpers {
  /**
   * Submits a generation and answers the ids of its result files (pending; follow them with
   * `files.waitFor`). The `Idempotency-Key` (generated unless given) is the same on every retry,
   * so a retried submit is charged once.
   *
   * With `wait` (seconds, at most 60; `true` for 60) the server holds the answer until the task
   * ends: the finished records, UpstreamTimeoutError (504) or UpstreamRateLimitedError (529,
   * with `retryAfter`) when the upstream timed out or rate limited, or `pending` when the
   * wait ran out first.
   */
  create<Kind extends GenerationKind>(
    kind: Kind,
    body: GenerationRequest<Kind>,
    options: CreateOptions & { wait: number | true },
  ): Promise<GenerationResult>;
  create<Kind extends GenerationKind>(
    kind: Kind,
    body: GenerationRequest<Kind>,
    options?: CreateOptions & { wait?: undefined },
  ): Promise<string[]>;
}

export function generationHelpers(api: TypedClient<paths>): GenerationHelpers {
  async function create(
    kind: GenerationKind,
    body: GenerationRequest<GenerationKind>,
    {
      idempotencyKey = crypto.randomUUID(),
      wait,
      parameters,
      ...call
    }: CreateOptions & { wait?: number | true } = {},
  ): Promise<GenerationResult | string[]> {
    const path = `/api/v1/generations/${kind}` as '/api/v1/generations/images';
    const seconds =
      wait === undefined
        ? undefined
        : wait === true
          ? MAX_GENERATION_WAIT_SECONDS
          : Math.min(wait, MAX_GENERATION_WAIT_SECONDS);
    const { data } = await api.POST(path, {
      params: {
        header: {
          'Idempotency-Key': idempotencyKey,
          ...(seconds !== undefined ? { Prefer: `wait=${Math.max(1, Math.ceil(seconds))}` } : {}),
        },
      },
      body: { ...parameters, ...body } as DocumentedRequest<'images'>,
      // The server holds the answer up to `seconds`: the call may take that long and a bit.
      ...(seconds !== undefined && call.timeout === undefined ? { timeout: (seconds + 30) * 1000 } : {}),
      ...call,
    });
    return seconds === undefined ? data.file_ids : (data as GenerationResult);
  }
  return { create: create as GenerationHelpers['create'] };
}
