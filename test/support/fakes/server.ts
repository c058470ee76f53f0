import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * How a fake upstream answers its next request: normally, slowly, with a 500, a 400, a 429
 * with Retry-After, or not at all (hang: the connection stays open until the server closes).
 */
export type Behaviour =
  'ok' | 'fail' | 'reject' | 'hang' | { slowMs: number } | { rateLimit: { retryAfterSeconds: number } };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  rawBody: Buffer;
  /** When the request arrived (ms since the epoch). */
  at: number;
}

export interface FakeServer {
  url: string;
  requests: RecordedRequest[];
  /** Behaviours for the next requests, in order; afterwards `fallback` applies. */
  script(...behaviours: Behaviour[]): void;
  fallback: Behaviour;
  close(): Promise<void>;
}

export type Route = (request: RecordedRequest, res: ServerResponse) => void | Promise<void>;

/** A node:http server on 127.0.0.1 and a free port that plays behaviours before routing. */
export async function startFakeServer(
  route: Route,
  scripted: (request: RecordedRequest) => boolean = () => true,
): Promise<FakeServer> {
  const queue: Behaviour[] = [];
  const hanging = new Set<ServerResponse>();
  const fake: FakeServer = {
    url: '',
    requests: [],
    script: (...behaviours) => queue.push(...behaviours),
    fallback: 'ok',
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks);
    const request = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: req.headers,
      body: rawBody.toString(),
      rawBody,
      at: Date.now(),
    };
    fake.requests.push(request);
    const behaviour = scripted(request) ? (queue.shift() ?? fake.fallback) : 'ok';
    if (behaviour === 'hang') return void hanging.add(res);
    if (behaviour === 'fail') return json(res, 500, { error: { message: 'internal upstream error' } });
    if (behaviour === 'reject')
      return json(res, 400, { error: { message: 'the prompt violates the content policy' } });
    if (typeof behaviour === 'object' && 'rateLimit' in behaviour) {
      res.setHeader('retry-after', String(behaviour.rateLimit.retryAfterSeconds));
      return json(res, 429, { error: { message: 'rate limit reached' } });
    }
    if (typeof behaviour === 'object' && 'slowMs' in behaviour)
      await new Promise((resolve) => setTimeout(resolve, behaviour.slowMs));
    await route(request, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** A 1×1 GIF, what a fake upstream hands out as a "video". */
export const TINY_GIF = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');
/** A 1×1 PNG. */
export const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);
