import fs from 'node:fs';
import { text } from 'node:stream/consumers';
import { usageError } from '../../errors.ts';
import type { Factory } from '../../factory.ts';

/** `KEY=VALUE` → [key, value]; a usage error names the word otherwise. */
function split(pair: string, what: string): [string, string] {
  const at = pair.indexOf('=');
  if (at <= 0) throw usageError(`"${pair}" is not ${what}=VALUE`, `write it as ${what}=VALUE`);
  return [pair.slice(0, at), pair.slice(at + 1)];
}

/**
 * `KEY=VALUE` settings: a value that reads as JSON (numbers, true/false, null, lists, objects)
 * is taken as such, anything else as a string, so `max_upload_bytes=1048576` is a number and
 * `name=Acme` a string.
 */
export function parseSettings(pairs: readonly string[] = []): Record<string, unknown> {
  return Object.fromEntries(
    pairs.map((pair) => {
      const [key, raw] = split(pair, 'KEY');
      try {
        return [key, JSON.parse(raw) as unknown];
      } catch {
        return [key, raw];
      }
    }),
  );
}

/**
 * Secrets, never taken from the command line itself (shell history, process lists): `KEY=@file`
 * reads a file, `KEY=-` reads standard input (one of them at most). The trailing newline an
 * editor or `echo` leaves is dropped.
 */
export async function readSecrets(
  pairs: readonly string[] = [],
  f: Factory,
): Promise<Record<string, string>> {
  const secrets: Record<string, string> = {};
  let stdinUsed = false;
  for (const pair of pairs) {
    const [key, source] = split(pair, 'KEY');
    if (source === '-') {
      if (stdinUsed) throw usageError('only one secret can be read from standard input');
      stdinUsed = true;
      secrets[key] = (await text(f.io.stdin)).replace(/\r?\n$/, '');
    } else if (source.startsWith('@')) {
      try {
        secrets[key] = fs.readFileSync(source.slice(1), 'utf8').replace(/\r?\n$/, '');
      } catch (error) {
        throw usageError(`cannot read ${source.slice(1)}: ${(error as Error).message}`);
      }
    } else {
      throw usageError(
        `secret ${key} must come from a file or stdin`,
        `write ${key}=@FILE or ${key}=- (stdin)`,
      );
    }
  }
  return secrets;
}

/** commander's collector for repeatable flags (`--set a=1 --set b=2`). */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
