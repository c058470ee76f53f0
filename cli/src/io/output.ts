import { styleText } from 'node:util';
import Table from 'cli-table3';
import YAML from 'yaml';
import type { IOStreams } from './streams.ts';

export const OUTPUT_FORMATS = ['table', 'json', 'yaml'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** A table column: its header and how to show a record's value in it. */
export interface Column<T> {
  header: string;
  value(record: T): unknown;
}

/**
 * Prints what commands produce: records and lists to stdout in the chosen format (tables for
 * people, JSON or YAML for scripts, which always get the full records), notices to stderr.
 */
export class Printer {
  private readonly io: IOStreams;
  readonly format: OutputFormat;
  readonly color: boolean;

  constructor(io: IOStreams, format: OutputFormat, color: boolean) {
    this.io = io;
    this.format = format;
    this.color = color;
  }

  /** A list: a table with `columns`, or the full records. */
  list<T>(records: readonly T[], columns: readonly Column<T>[]): void {
    if (this.format !== 'table') return this.data(records);
    if (records.length === 0) {
      this.notice('nothing to show');
      return;
    }
    const table = new Table({
      head: columns.map((column) => this.paint('bold', column.header)),
      chars: BORDERLESS,
      style: { head: [], border: [], 'padding-left': 0, 'padding-right': 2 },
    });
    for (const record of records) table.push(columns.map((column) => cell(column.value(record))));
    this.io.stdout.write(`${table.toString().replace(/ +$/gm, '')}\n`);
  }

  /** One record: `field  value` lines, or the record itself. */
  record(record: object): void {
    if (this.format !== 'table') return this.data(record);
    const entries = Object.entries(record);
    const width = Math.max(...entries.map(([key]) => key.length));
    for (const [key, value] of entries) {
      this.io.stdout.write(`${this.paint('bold', key.padEnd(width))}  ${cell(value)}\n`);
    }
  }

  /** Anything, as JSON or YAML even in table mode (e.g. a JSON Schema). */
  data(value: unknown): void {
    this.io.stdout.write(
      this.format === 'yaml' ? YAML.stringify(value) : `${JSON.stringify(value, null, 2)}\n`,
    );
  }

  /** A bare value for scripts (`muse auth token`). */
  line(text: string): void {
    this.io.stdout.write(`${text}\n`);
  }

  /** A message for people (confirmations, hints) on stderr, so stdout stays parseable. */
  notice(text: string): void {
    this.io.stderr.write(`${text}\n`);
  }

  success(text: string): void {
    this.notice(`${this.paint('green', '✓')} ${text}`);
  }

  paint(style: 'bold' | 'green' | 'red' | 'yellow' | 'dim', text: string): string {
    return this.color ? styleText(style, text, { validateStream: false }) : text;
  }
}

/**
 * A reader that stops early (`muse me | head -1`) closes the pipe: the next write fails with
 * EPIPE. Like `gh`, end quietly then (nothing more can reach the reader) instead of crashing with
 * an unhandled 'error' stack.
 */
export function endQuietlyOnClosedPipe(stream: NodeJS.WriteStream, exit: () => never): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') exit();
    throw error;
  });
}

/** No borders and no separators: aligned columns, like `gh` and `kubectl`. */
const BORDERLESS = Object.fromEntries(
  [
    'top',
    'top-mid',
    'top-left',
    'top-right',
    'bottom',
    'bottom-mid',
    'bottom-left',
    'bottom-right',
    'left',
    'left-mid',
    'mid',
    'mid-mid',
    'right',
    'right-mid',
    'middle',
  ].map((name) => [name, '']),
);

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(cell).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
