import { Command } from 'commander';
import { collect } from '../shared/pairs.ts';

/** The flags of every kind: generator, prompt, extra parameters, waiting and downloading. */
export function generateCommandBase(name: string, description: string): Command {
  return new Command(name)
    .description(description)
    .requiredOption('--generator <name|id>', 'generator to use (muse generators list)')
    .option('--prompt <text>', 'what to make')
    .option('--param <KEY=VALUE>', "another parameter of the generator's schema (repeatable)", collect)
    .option(
      '--wait',
      'wait until the results are done (the server waits up to 60 s, then progress is polled)',
    )
    .option('--out <dir>', 'download the results into this folder, or - to standard output (implies --wait)')
    .option('--idempotency-key <key>', 'the same key never pays twice for one request');
}
