import {
  createServer,
  IncomingMessage,
  ServerResponse,
  type RequestListener,
  type Server,
  type ServerOptions,
} from 'node:http';
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
  const server = createServer(
    { keepAliveTimeout: 65_000, headersTimeout: 66_000, ...messageClasses(handler) },
    handler,
  );
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

/** What an Express app sets as the prototype of each request and response it handles. */
interface ExpressPrototypes {
  request: IncomingMessage;
  response: ServerResponse;
}

/**
 * For an Express app, request and response classes whose objects are born with the app's own
 * prototypes. Express gives every request and response those prototypes as it takes them
 * (`Object.setPrototypeOf`), which changes each object's hidden class in V8 and so slows every
 * later access to it; an object that already has them is left as it is.
 */
function messageClasses(handler: RequestListener): Pick<ServerOptions, 'IncomingMessage' | 'ServerResponse'> {
  const { request, response } = handler as Partial<ExpressPrototypes>;
  if (!(request instanceof IncomingMessage) || !(response instanceof ServerResponse)) return {};
  return {
    IncomingMessage: bornWith<typeof IncomingMessage>(IncomingMessage, request),
    ServerResponse: bornWith<typeof ServerResponse>(ServerResponse, response),
  };
}

/** A subclass of `base` whose instances have `prototype` (an object inheriting from base's). */
function bornWith<C extends new (...args: never[]) => object>(base: C, prototype: InstanceType<C>): C {
  function Born(...args: unknown[]) {
    return Reflect.construct(base, args, Born) as InstanceType<C>;
  }
  Born.prototype = prototype;
  Object.setPrototypeOf(Born, base);
  return Born as unknown as C;
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
