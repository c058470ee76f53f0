import { Command } from 'commander';
import type { Factory } from '../../factory.ts';
import { generatorId } from './shared.ts';

export interface SchemaOptions {
  generator: string;
}

/** The JSON Schema of the generator's request body: what `muse generate --param` may set. */
export async function run(options: SchemaOptions, f: Factory): Promise<void> {
  const id = await generatorId(f, options.generator, { includeInactive: true });
  const { data } = await f
    .content()
    .GET('/api/v1/generations/schemas', { params: { query: { generator_id: id } } });
  f.printer().data(data);
}

export function schemaCommand(f: Factory): Command {
  return new Command('schema')
    .description("Print the JSON Schema of a generator's parameters")
    .argument('<generator>', 'id or name')
    .action((generator: string) => run({ generator }, f));
}
