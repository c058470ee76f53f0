import { Command } from 'commander';
import type { Factory } from '../../../factory.ts';
import { collect } from '../../shared/pairs.ts';

export interface TailOptions {
  type?: string[];
}

/**
 * Prints the caller's events as they happen until Ctrl-C, when the event queue is deleted and
 * the command exits 0. One line per event: `id type details` for people, one JSON object per
 * line with `-o json` (for `jq`).
 */
export async function run(options: TailOptions, f: Factory): Promise<void> {
  const printer = f.printer();
  const events = f.chat().events({
    ...(options.type?.length ? { event_types: options.type } : {}),
    signal: f.interrupt,
    onRegister: () => printer.notice('Listening for events; Ctrl-C stops.'),
  });
  try {
    for await (const event of events) {
      if (printer.format === 'table') {
        const { id, type, ...details } = event;
        printer.line(`${id}\t${type}\t${JSON.stringify(details)}`);
      } else printer.line(JSON.stringify(event));
    }
  } catch (error) {
    if (!f.interrupt.aborted) throw error;
  }
}

export function tailCommand(f: Factory): Command {
  return new Command('tail')
    .description('Stream your events until Ctrl-C (-o json: one JSON object per line)')
    .option('--type <type>', 'only events of this type, e.g. message (repeatable)', collect)
    .action((options: TailOptions) => run(options, f));
}
