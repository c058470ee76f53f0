import { PermissionDeniedError, type ContentComponents } from '@muse/sdk';
import { generatorKindValues } from '@muse/sdk/generated/content';
import type { Column } from '../../io/output.ts';
import type { Factory } from '../../factory.ts';
import { CliError, ExitCode } from '../../errors.ts';
import { isUuid } from '../shared/ids.ts';

export type Generator = ContentComponents['schemas']['Generator'];
export type GeneratorKind = Generator['kind'];
export const GENERATOR_KINDS = generatorKindValues;

export const GENERATOR_COLUMNS: Column<Generator>[] = [
  { header: 'ID', value: (g) => g.id },
  { header: 'NAME', value: (g) => g.name },
  { header: 'KIND', value: (g) => g.kind },
  { header: 'TYPE', value: (g) => g.type },
  { header: 'COST', value: (g) => g.base_cost },
  {
    header: 'PRICING',
    value: (g) =>
      g.pricing.mode === 'per_unit'
        ? `per image / ${g.pricing.video_unit_seconds ?? 5} s of video`
        : 'per task',
  },
  { header: 'ACTIVE', value: (g) => (g.is_active ? 'yes' : 'no') },
];

const LIST_PATHS = {
  image: '/api/v1/generators/images',
  video: '/api/v1/generators/videos',
  text: '/api/v1/generators/texts',
} as const;

/**
 * The generators of some kinds (all three unless narrowed), every page; the deactivated ones too
 * with `includeInactive` (administrators: the API answers 403 to anyone else).
 */
export async function listGenerators(
  f: Factory,
  kinds: readonly GeneratorKind[] = GENERATOR_KINDS,
  includeInactive = false,
): Promise<Generator[]> {
  const client = f.content();
  const query = includeInactive ? { include_inactive: true, limit: 100 } : { limit: 100 };
  const lists = await Promise.all(
    kinds.map(async (kind) => {
      const rows: Generator[] = [];
      for await (const generator of client.paginate(LIST_PATHS[kind], { params: { query } }))
        rows.push(generator);
      return rows;
    }),
  );
  return lists.flat();
}

/**
 * A generator by id, or by name (of `kind` when given). Active generators are searched first;
 * with `includeInactive` a name no active one has is looked up among the deactivated ones too
 * (administrators' commands: `update --enable` must find the generator `disable` deactivated).
 */
export async function generatorId(
  f: Factory,
  idOrName: string,
  { kind, includeInactive = false }: { kind?: GeneratorKind; includeInactive?: boolean } = {},
): Promise<string> {
  if (isUuid(idOrName)) return idOrName;
  const kinds = kind ? [kind] : GENERATOR_KINDS;
  const named = (generators: Generator[]) => generators.filter((g) => g.name === idOrName);
  let found = named(await listGenerators(f, kinds));
  if (found.length === 0 && includeInactive) {
    try {
      found = named(await listGenerators(f, kinds, true));
    } catch (error) {
      if (!(error instanceof PermissionDeniedError)) throw error; // not an administrator: none they may see
    }
  }
  if (found.length === 1) return found[0]!.id;
  const what = `${includeInactive ? '' : 'active '}${kind ? `${kind} ` : ''}generator`;
  throw new CliError(
    found.length === 0 ? `no ${what} named "${idOrName}"` : `several generators are named "${idOrName}"`,
    {
      exitCode: found.length === 0 ? ExitCode.notFound : ExitCode.usage,
      code: found.length === 0 ? 'not_found' : 'ambiguous',
      hint:
        found.length === 0
          ? `see muse generators list${includeInactive ? ' --include-inactive' : ''}`
          : 'use its id (muse generators list)',
    },
  );
}
