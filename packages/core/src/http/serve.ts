import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger.ts';

export interface RunningServer {
  server: Server;
  url: string;
  /** Stops accepting connections, lets in-flight requests finish (up to the timeout), then closes the rest. */
  close(): Promise<void>;
}

export async function listen(
  handler: RequestListener,
  {
    host,
    port,
    logger,
    shutdownTimeoutMs,
  }: { host: string; port: number; logger: Logger; shutdownTimeoutMs: number },
): Promise<RunningServer> {
  // Idle keep-alive connections outlive those of clients and load balancers (commonly 60 s), so a
  // client never sends a request on a connection the server is closing at that moment (ECONNRESET).
  const server = createServer({ keepAliveTimeout: 65_000, headersTimeout: 66_000 }, handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const url = `http://${shownHost}:${address.port}`;

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= new Promise<void>((resolve) => {
      const force = setTimeout(() => {
        logger.warn('shutdown timeout reached; closing remaining connections');
        server.closeAllConnections();
      }, shutdownTimeoutMs);
      force.unref();
      // Keep-alive connections turn idle as their last response ends; close them as they do.
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      server.close(() => {
        clearTimeout(force);
        clearInterval(sweep);
        resolve();
      });
      server.closeIdleConnections();
    }));
  return { server, url, close };
}

/** Runs `stop` once on SIGTERM or SIGINT, then exits; a second signal exits at once. */
export function onShutdownSignal(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, 'shutting down');
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', handle);
  process.once('SIGINT', handle);
}
