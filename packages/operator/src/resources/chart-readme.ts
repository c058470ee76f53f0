import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const CHART_DIR = fileURLToPath(new URL('../../../../charts/muse', import.meta.url));
const START = '<!-- values-table:start -->';
const END = '<!-- values-table:end -->';

function valueAt(values: unknown, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], values);
}

function cell(value: unknown): string {
  const text = value === undefined ? '' : JSON.stringify(value);
  return `\`${text.replaceAll('|', '\\|')}\``;
}

/**
 * The chart README's values table, from the `## @section` and `## @param <path> <text>` comments
 * of values.yaml (the convention of Bitnami's readme generator) and the defaults themselves.
 */
export async function renderValuesTable(): Promise<string> {
  const source = await readFile(`${CHART_DIR}/values.yaml`, 'utf8');
  const values = parse(source) as unknown;
  const lines: string[] = [];
  for (const line of source.split('\n')) {
    const section = /^\s*## @section (.+)$/.exec(line);
    if (section) {
      lines.push('', `### ${section[1]}`, '', '| Name | Description | Default |', '| --- | --- | --- |');
      continue;
    }
    const param = /^\s*## @param (\S+) (.+)$/.exec(line);
    if (param)
      lines.push(
        `| \`${param[1]}\` | ${param[2]!.replaceAll('|', '\\|')} | ${cell(valueAt(values, param[1]!))} |`,
      );
  }
  return lines.join('\n').trim();
}

/** The README with its table replaced by the current one. */
export async function readmeWithValuesTable(): Promise<{ path: string; current: string; expected: string }> {
  const path = `${CHART_DIR}/README.md`;
  const current = await readFile(path, 'utf8');
  const start = current.indexOf(START);
  const end = current.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${path} lacks the ${START} … ${END} markers`);
  const expected = `${current.slice(0, start + START.length)}\n\n${await renderValuesTable()}\n\n${current.slice(end)}`;
  return { path, current, expected };
}
