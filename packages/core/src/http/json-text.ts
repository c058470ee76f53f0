/** Deepest nesting of arrays and objects a request body may have (jsonb and validators recurse). */
export const MAX_JSON_DEPTH = 64;

/**
 * What makes JSON text unacceptable before it is parsed: nesting deeper than `maxDepth`, or a
 * NUL character in a string or name (Postgres text and jsonb cannot hold it). One pass over
 * the text, strings and escapes included; undefined when the text is acceptable.
 */
export function jsonTextProblem(text: string, maxDepth = MAX_JSON_DEPTH): string | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\u0000') return 'contains a NUL (0x00) character';
      if (char === '\\') {
        if (text.startsWith('u0000', i + 1)) return 'contains a NUL (0x00) character';
        i++;
      } else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '[' || char === '{') {
      if (++depth > maxDepth) return `is nested deeper than ${maxDepth} levels`;
    } else if (char === ']' || char === '}') depth--;
  }
  return undefined;
}

/** Thrown by a JSON body parser's `verify` hook; the APIs answer it as a validation error. */
export class UnacceptableJsonError extends Error {
  override name = 'UnacceptableJsonError';
  readonly status = 400;
}

/** express.json's `verify`: refuses NUL characters and deep nesting before the body is parsed. */
export function verifyJsonText(_req: unknown, _res: unknown, buffer: Buffer): void {
  const problem = jsonTextProblem(buffer.toString('utf8'));
  if (problem) throw new UnacceptableJsonError(`The request body ${problem}`);
}
