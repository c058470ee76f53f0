import type { paths } from '../generated/content.ts';
import type { CallOptions } from '../transport/transport.ts';
import type { TypedClient } from '../typed-client.ts';

export type GenerationKind = 'images' | 'videos' | 'texts';

/** The request body of `POST /api/v1/generations/{kind}`. */
export type GenerationRequest<Kind extends GenerationKind> =
  paths[`/api/v1/generations/${Kind}`]['post']['requestBody']['content']['application/json'];

export interface GenerationHelpers {
  /**
   * Submits a generation and answers the ids of its result files (pending; follow them with
   * `files.waitFor`). The `Idempotency-Key` (generated unless given) is the same on every retry,
   * so a retried submit is charged once.
   */
  create<Kind extends GenerationKind>(
    kind: Kind,
    body: GenerationRequest<Kind>,
    options?: { idempotencyKey?: string } & CallOptions,
  ): Promise<string[]>;
}

export function generationHelpers(api: TypedClient<paths>): GenerationHelpers {
  return {
    async create(kind, body, { idempotencyKey = crypto.randomUUID(), ...call } = {}) {
      const path = `/api/v1/generations/${kind}` as '/api/v1/generations/images';
      const { data } = await api.POST(path, {
        params: { header: { 'Idempotency-Key': idempotencyKey } },
        body: body as GenerationRequest<'images'>,
        ...call,
      });
      return data.file_ids;
    },
  };
}
