import fs from 'node:fs';
import { Option, type Command } from 'commander';
import { usageError } from '../../errors.ts';
import type { Factory } from '../../factory.ts';
import { collect, parseSettings, readSecrets } from '../shared/pairs.ts';
import { integer } from '../shared/lists.ts';
import type { Generator } from './shared.ts';

const GENERATOR_TYPES = ['builtin', 'openai', 'replicate'] as const satisfies readonly Generator['type'][];

/** The flags `add` and `update` share; each maps to one field of the generator. */
export interface GeneratorFlags {
  name?: string;
  type?: Generator['type'];
  description?: string;
  baseCost?: number;
  config?: string[];
  secret?: string[];
  parametersSchema?: string;
}

export function withGeneratorFlags(command: Command): Command {
  return command
    .addOption(new Option('--type <type>', 'upstream adapter').choices(GENERATOR_TYPES))
    .option('--description <text>', 'what it is for')
    .option(
      '--base-cost <credits>',
      'credits per task (per image or video unit with --config pricing=…)',
      integer,
    )
    .option(
      '--config <KEY=VALUE>',
      'an adapter setting, e.g. base_url=https://… model=… pricing=\'{"mode":"per_unit"}\' (repeatable)',
      collect,
    )
    .option(
      '--secret <KEY=@FILE|KEY=->',
      'a secret (api_key) read from a file or stdin (repeatable)',
      collect,
    )
    .option('--parameters-schema <@FILE>', 'JSON Schema of the request body, read from a file');
}

/** The request body fields of the flags that were given. */
export async function generatorFields(flags: GeneratorFlags, f: Factory): Promise<Record<string, unknown>> {
  const secrets = await readSecrets(flags.secret, f);
  return {
    ...(flags.name !== undefined ? { name: flags.name } : {}),
    ...(flags.type !== undefined ? { type: flags.type } : {}),
    ...(flags.description !== undefined ? { description: flags.description } : {}),
    ...(flags.baseCost !== undefined ? { base_cost: flags.baseCost } : {}),
    ...(flags.config?.length ? { config: parseSettings(flags.config) } : {}),
    ...(Object.keys(secrets).length ? { secrets } : {}),
    ...(flags.parametersSchema !== undefined
      ? { parameters_schema: readJsonFile(flags.parametersSchema) }
      : {}),
  };
}

function readJsonFile(source: string): unknown {
  const file = source.replace(/^@/, '');
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw usageError(`cannot read a JSON Schema from ${file}: ${(error as Error).message}`);
  }
}
