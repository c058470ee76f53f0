import { once } from 'node:events';
import { request, type IncomingMessage } from 'node:http';

export interface StreamedAnswer {
  status: number;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
  /** Body bytes the client had written when the answer arrived. */
  sentWhenAnswered: number;
}

/**
 * Sends `head`, then filler bytes up to `total`, writing only as fast as the server takes them,
 * and stops at the answer: a server that answers before reading leaves most of a large body
 * unsent (socket buffers hold a few MiB); one that reads it all first answers only once
 * everything was sent. Without `total` the body is `head` alone; `chunked` sends no length.
 */
export async function sendStreamed(
  url: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    head: string;
    total?: number;
    chunked?: boolean;
  },
): Promise<StreamedAnswer> {
  const { total = 0, head } = options;
  const first = Buffer.from(head);
  const req = request(url, {
    method: options.method ?? 'POST',
    headers: {
      ...options.headers,
      ...(options.chunked ? {} : { 'content-length': String(Math.max(total, first.length)) }),
    },
  });
  // Once the server answered and closed, further writes fail: that is the point.
  req.on('error', () => {});
  let answered = false;
  const response = once(req, 'response').then(([res]) => {
    answered = true;
    return res as IncomingMessage;
  });
  let sent = 0;
  const write = async (chunk: Buffer) => {
    sent += chunk.length;
    if (!req.write(chunk)) await Promise.race([once(req, 'drain'), response]);
  };
  await write(first);
  const filler = Buffer.alloc(256 * 1024, 'x');
  while (!answered && sent < total) await write(filler.subarray(0, Math.min(filler.length, total - sent)));
  if (!answered) req.end();
  const res = await response;
  const sentWhenAnswered = sent;
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  req.destroy();
  return {
    status: res.statusCode!,
    headers: res.headers,
    body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
    sentWhenAnswered,
  };
}
