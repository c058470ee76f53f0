#!/usr/bin/env node
import { runCli } from './cli.ts';
import { createFactory } from './factory.ts';
import { endQuietlyOnClosedPipe } from './io/output.ts';

endQuietlyOnClosedPipe(process.stdout, () => process.exit(0));

// Ctrl-C ends waits and event streams through the factory's signal, so they clean up (an event
// queue is deleted, a live line cleared) and exit normally; a second Ctrl-C stops at once.
const interrupt = new AbortController();
process.once('SIGINT', () => {
  interrupt.abort();
  process.once('SIGINT', () => process.exit(130));
});
process.exitCode = await runCli(process.argv.slice(2), createFactory({ interrupt: interrupt.signal }));
