import type { ContentComponents } from '@muse/sdk';
import type { Column } from '../../io/output.ts';
import type { Factory } from '../../factory.ts';
import { CliError, ExitCode } from '../../errors.ts';
import { isUuid } from '../shared/ids.ts';

export type Generator = ContentComponents['schemas']['Generator'];
export type GeneratorKind = Generator['kind'];
export const GENERATOR_KINDS = ['image', 'video', 'text'] as const satisfies readonly GeneratorKind[];

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

/** The active generators of some kinds (all three unless narrowed). */
export async function activeGenerators(
  f: Factory,
  kinds: readonly GeneratorKind[] = GENERATOR_KINDS,
): Promise<Generator[]> {
  const client = f.content();
  const lists = await Promise.all(kinds.map((kind) => client.GET(LIST_PATHS[kind]).then(({ data }) => data)));
  return lists.flat();
}

/** A generator by id, or by the name of an active one (of `kind` when given). */
export async function generatorId(f: Factory, idOrName: string, kind?: GeneratorKind): Promise<string> {
  if (isUuid(idOrName)) return idOrName;
  const found = (await activeGenerators(f, kind ? [kind] : GENERATOR_KINDS)).filter(
    (g) => g.name === idOrName,
  );
  if (found.length === 1) return found[0]!.id;
  throw new CliError(
    found.length === 0
      ? `no active ${kind ?? ''}${kind ? ' ' : ''}generator named "${idOrName}"`
      : `several generators are named "${idOrName}"`,
    {
      exitCode: found.length === 0 ? ExitCode.notFound : ExitCode.usage,
      code: found.length === 0 ? 'not_found' : 'ambiguous',
      hint: found.length === 0 ? 'see muse generators list' : 'use its id (muse generators list)',
    },
  );
}
