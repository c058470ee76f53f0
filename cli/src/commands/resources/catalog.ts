import type { ContentPaths } from '@muse/sdk';
import type { Factory } from '../../factory.ts';
import { usageError } from '../../errors.ts';

/**
 * The resources served by the content API's generic mechanism (`defineResource`), by permission
 * name. Typed against the SDK's paths, so a resource the API drops fails the typecheck here.
 */
const RESOURCES = {
  character: '/api/v1/characters',
  user_character_config: '/api/v1/user-character-configs',
  conversation: '/api/v1/conversations',
  project: '/api/v1/projects',
  canvas: '/api/v1/canvases',
  skill: '/api/v1/skills',
  node_group: '/api/v1/node-groups',
  favorite: '/api/v1/favorites',
  bundle: '/api/v1/bundles',
  payment: '/api/v1/payments',
  transaction_log: '/api/v1/transaction-logs',
  invite_code: '/api/v1/invite-codes',
} as const satisfies Record<string, keyof ContentPaths>;

export const RESOURCE_NAMES = Object.keys(RESOURCES);

/** A resource's collection path from its name, singular or plural, with `_` or `-` (`node-groups`). */
export function resourcePath(name: string): string {
  const wanted = name.toLowerCase().replace(/-/g, '_');
  for (const [resource, path] of Object.entries(RESOURCES)) {
    if (wanted === resource || wanted === path.slice('/api/v1/'.length).replace(/-/g, '_')) return path;
  }
  throw usageError(`no resource "${name}"`, `the resources are: ${RESOURCE_NAMES.join(', ')}`);
}

type Untyped = (path: string, init?: object) => Promise<{ data: unknown }>;

/**
 * The generic calls, path chosen at run time: the generated types cannot follow a path that is a
 * variable, so these go through the same client untyped.
 */
export function resourceCalls(f: Factory) {
  const client = f.content();
  return {
    get: client.GET as unknown as Untyped,
    post: client.POST as unknown as Untyped,
    patch: client.PATCH as unknown as Untyped,
    delete: client.DELETE as unknown as Untyped,
    paginate: client.paginate as unknown as (
      path: string,
      init?: object,
    ) => AsyncGenerator<Record<string, unknown>>,
  };
}
