import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const fixture = fileURLToPath(new URL('fixtures/typed-calls.ts', import.meta.url));
const config = fileURLToPath(new URL('../../tsconfig.base.json', import.meta.url));

/** The fixture's lines (1-based) with a compile error, by compiling it with the repository's settings. */
function linesWithErrors(): Map<number, string> {
  const { config: raw } = ts.readConfigFile(config, ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(
    raw,
    ts.sys,
    fileURLToPath(new URL('../../', import.meta.url)),
  );
  const program = ts.createProgram([fixture], options);
  const errors = new Map<number, string>();
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    if (diagnostic.file?.fileName !== fixture || diagnostic.start === undefined) continue;
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    errors.set(line + 1, ts.flattenDiagnosticMessageText(diagnostic.messageText, ' '));
  }
  return errors;
}

describe('@muse/sdk types', () => {
  // Compiling takes a while on a busy machine.
  it(
    'reject a wrong path, method, parameter, body or answer type, and accept the right calls',
    { timeout: 120_000 },
    () => {
      const marked = readFileSync(fixture, 'utf8')
        .split('\n')
        .flatMap((line, index) => (line.includes('// error:') ? [index + 1] : []));
      expect(marked.length).toBeGreaterThanOrEqual(12);
      const errors = linesWithErrors();
      expect(
        [...errors.keys()].sort((a, b) => a - b),
        JSON.stringify(Object.fromEntries(errors), null, 1),
      ).toEqual(marked);
    },
  );
});
