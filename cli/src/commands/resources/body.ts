import fs from 'node:fs';
import { Option, type Command } from 'commander';
import { usageError } from '../../errors.ts';
import { collect, parseSettings } from '../shared/pairs.ts';

export interface BodyFlags {
  set?: string[];
  data?: string;
}

export function withBodyFlags(command: Command): Command {
  return command
    .option('--set <KEY=VALUE>', 'a field (repeatable); JSON values are taken as such', collect)
    .addOption(new Option('--data <json|@file>', 'the whole body as JSON, inline or from a file'));
}

/** The request body: `--data` first, `--set` fields over it. */
export function bodyOf(flags: BodyFlags): Record<string, unknown> {
  let base: Record<string, unknown> = {};
  if (flags.data !== undefined) {
    const text = flags.data.startsWith('@') ? readFile(flags.data.slice(1)) : flags.data;
    try {
      base = JSON.parse(text) as Record<string, unknown>;
    } catch (error) {
      throw usageError(`--data is not JSON: ${(error as Error).message}`);
    }
  }
  const body = { ...base, ...parseSettings(flags.set) };
  if (Object.keys(body).length === 0)
    throw usageError('no fields given', 'use --set KEY=VALUE or --data JSON');
  return body;
}

function readFile(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw usageError(`cannot read ${file}: ${(error as Error).message}`);
  }
}
