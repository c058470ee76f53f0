import type { IOStreams } from './streams.ts';

/** Shows how a long wait is going, on stderr. */
export interface Progress {
  update(status: string): void;
  done(): void;
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * On a terminal, one live line redrawn at each update (spinner, status, elapsed seconds);
 * otherwise (logs, CI) one line per change of status, so a log shows the history without noise.
 */
export function createProgress(io: IOStreams, now: () => Date): Progress {
  const started = now().getTime();
  if (!io.stderrIsTTY) {
    let last: string | undefined;
    return {
      update(status) {
        if (status === last) return;
        last = status;
        io.stderr.write(`${status}\n`);
      },
      done() {},
    };
  }
  let frame = 0;
  let drawn = false;
  return {
    update(status) {
      const seconds = Math.floor((now().getTime() - started) / 1000);
      const line = `${SPINNER[frame++ % SPINNER.length]} ${status} (${seconds}s)`;
      io.stderr.write(`\r\x1b[2K${line.slice(0, Math.max(10, io.columns - 1))}`);
      drawn = true;
    },
    done() {
      if (drawn) io.stderr.write('\r\x1b[2K');
      drawn = false;
    },
  };
}
