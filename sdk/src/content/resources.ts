import type { paths } from '../generated/content.ts';
import type { CallOptions } from '../transport/transport.ts';
import type { SuccessData, TypedClient } from '../typed-client.ts';
import type { ListItem, ListPath, Paginate } from './paginate.ts';

/** The resources served as a collection `/api/v1/<name>` (a list) and items `/api/v1/<name>/{id}`. */
export type ResourceName = {
  [Path in keyof paths]: Path extends `/api/v1/${infer Name}/{id}`
    ? `/api/v1/${Name}` extends ListPath
      ? Name
      : never
    : never;
}[keyof paths];

type Collection<Name extends ResourceName> = paths[`/api/v1/${Name}`];
type Item<Name extends ResourceName> = paths[`/api/v1/${Name}/{id}`];
type JsonBody<Operation> = Operation extends {
  requestBody?: { content: { 'application/json': infer Body } };
}
  ? Body
  : never;
type ListQuery<Name extends ResourceName> = Collection<Name>['get'] extends {
  parameters: { query?: infer Query };
}
  ? Omit<NonNullable<Query>, 'offset'>
  : never;

/**
 * list/get/create/update/delete of one resource, typed by the document: `list` pages through
 * every row (as `paginate`), the others are one call each. A method the resource lacks (users
 * are not created here, for instance) takes `never` and does not compile.
 */
export interface ResourceHelpers<Name extends ResourceName> {
  list(query?: ListQuery<Name>, options?: CallOptions): AsyncGenerator<ListItem<`/api/v1/${Name}`>, void>;
  get(id: string, options?: CallOptions): Promise<SuccessData<Item<Name>['get']>>;
  create(
    body: JsonBody<Collection<Name>['post']>,
    options?: CallOptions,
  ): Promise<SuccessData<Collection<Name>['post']>>;
  update(
    id: string,
    body: JsonBody<Item<Name>['patch']>,
    options?: CallOptions,
  ): Promise<SuccessData<Item<Name>['patch']>>;
  delete(id: string, options?: CallOptions): Promise<void>;
}

type Untyped = (path: string, init: object) => Promise<{ data: unknown }>;

export function resourceHelpers<Name extends ResourceName>(
  api: TypedClient<paths>,
  paginate: Paginate,
  name: Name,
): ResourceHelpers<Name> {
  const collection = `/api/v1/${name}`;
  const item = `/api/v1/${name}/{id}`;
  const call = (method: keyof TypedClient<paths>) => api[method] as unknown as Untyped;
  return {
    list: (query, options) =>
      (
        paginate as unknown as (
          path: string,
          init: object,
        ) => AsyncGenerator<ListItem<`/api/v1/${Name}`>, void>
      )(collection, { ...options, params: { query: query ?? {} } }),
    get: async (id, options) =>
      (await call('GET')(item, { ...options, params: { path: { id } } })).data as never,
    create: async (body, options) => (await call('POST')(collection, { ...options, body })).data as never,
    update: async (id, body, options) =>
      (await call('PATCH')(item, { ...options, params: { path: { id } }, body })).data as never,
    delete: async (id, options) => {
      await call('DELETE')(item, { ...options, params: { path: { id } } });
    },
  };
}

type GeneratorItem = paths['/api/v1/generators/{generator_id}'];
type GeneratorListQuery = NonNullable<paths['/api/v1/generators/images']['get']['parameters']['query']>;

/** Generators: listed per kind (`/api/v1/generators/<kind>s`), changed by administrators; delete deactivates. */
export interface GeneratorHelpers {
  /** Every active generator of a kind; `include_inactive: true` (administrators) the disabled ones too. */
  list(
    kind: 'image' | 'video' | 'text',
    query?: Omit<GeneratorListQuery, 'offset'>,
    options?: CallOptions,
  ): AsyncGenerator<ListItem<'/api/v1/generators/images'>, void>;
  get(id: string, options?: CallOptions): Promise<SuccessData<GeneratorItem['get']>>;
  create(
    body: JsonBody<paths['/api/v1/generators']['post']>,
    options?: CallOptions,
  ): Promise<SuccessData<paths['/api/v1/generators']['post']>>;
  update(
    id: string,
    body: JsonBody<GeneratorItem['patch']>,
    options?: CallOptions,
  ): Promise<SuccessData<GeneratorItem['patch']>>;
  /** Deactivates it (past generations keep pointing at it); `update(id, {is_active: true})` brings it back. */
  delete(id: string, options?: CallOptions): Promise<void>;
}

export function generatorHelpers(api: TypedClient<paths>, paginate: Paginate): GeneratorHelpers {
  const item = (id: string, options?: CallOptions) => ({
    ...options,
    params: { path: { generator_id: id } },
  });
  return {
    list: (kind, query, options) =>
      paginate(`/api/v1/generators/${kind}s` as '/api/v1/generators/images', {
        ...options,
        params: { query: query ?? {} },
      }),
    get: async (id, options) => (await api.GET('/api/v1/generators/{generator_id}', item(id, options))).data,
    create: async (body, options) => (await api.POST('/api/v1/generators', { ...options, body })).data,
    update: async (id, body, options) =>
      (await api.PATCH('/api/v1/generators/{generator_id}', { ...item(id, options), body })).data,
    delete: async (id, options) => {
      await api.DELETE('/api/v1/generators/{generator_id}', item(id, options));
    },
  };
}
