import { Option, type Command } from 'commander';
import { usageError } from '../../errors.ts';

export interface ListFlags {
  all?: boolean;
  limit?: number;
}

/** `--all` and `--limit` on every list command. */
export function withListFlags(command: Command): Command {
  return command
    .option('--all', 'fetch every page')
    .addOption(new Option('--limit <n>', 'at most this many rows (default 50)').argParser(positiveInteger));
}

export function positiveInteger(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw usageError(`"${value}" is not a positive integer`);
  return number;
}

export function integer(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number)) throw usageError(`"${value}" is not an integer`);
  return number;
}

/**
 * Rows from the SDK's page iterator: everything with `--all`, otherwise the first `--limit`
 * (50 by default) — pages are fetched only as far as needed.
 */
export async function take<T>(rows: AsyncIterable<T>, flags: ListFlags): Promise<T[]> {
  const max = flags.all ? Infinity : (flags.limit ?? 50);
  const out: T[] = [];
  if (out.length >= max) return out;
  for await (const row of rows) {
    out.push(row);
    if (out.length >= max) break;
  }
  return out;
}

/** The page size to ask for: no more than needed, no more than the API's 100. */
export function pageSize(flags: ListFlags): number {
  return flags.all ? 100 : Math.min(100, flags.limit ?? 50);
}
