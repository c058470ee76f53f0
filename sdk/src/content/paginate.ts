import type { MaybeOptionalInit } from 'openapi-fetch';
import type { paths } from '../generated/content.ts';
import type { PathsWithMethod } from 'openapi-typescript-helpers';
import type { CallOptions } from '../transport/transport.ts';
import type { SuccessData, TypedClient } from '../typed-client.ts';

type GetPath = PathsWithMethod<paths, 'get'>;

/** The content API's list paths: GET operations whose answer is a JSON array (offset/limit pages). */
export type ListPath = {
  [Path in GetPath]: SuccessData<paths[Path]['get']> extends readonly unknown[] ? Path : never;
}[GetPath];

export type ListItem<Path extends ListPath> =
  SuccessData<paths[Path]['get']> extends readonly (infer Item)[] ? Item : never;

export type Paginate = <Path extends ListPath>(
  path: Path,
  init?: MaybeOptionalInit<paths[Path], 'get'> & CallOptions,
) => AsyncGenerator<ListItem<Path>, void, undefined>;

/**
 * Every row of an offset/limit list, page after page (`limit` per request, 100 unless given,
 * starting at the given `offset`), until a page comes back short.
 */
export function paginator(api: TypedClient<paths>): Paginate {
  return async function* paginate(path, init) {
    const { params, ...rest } = (init ?? {}) as { params?: { query?: { offset?: number; limit?: number } } };
    const limit = params?.query?.limit ?? 100;
    let offset = params?.query?.offset ?? 0;
    for (;;) {
      const page = await (api.GET as (path: string, init: object) => Promise<{ data: unknown[] }>)(path, {
        ...rest,
        params: { ...params, query: { ...params?.query, limit, offset } },
      });
      yield* page.data as ListItem<typeof path>[];
      if (page.data.length < limit) return;
      offset += page.data.length;
    }
  };
}
