import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Unread body bytes Node may read off the wire to keep the connection (Go's net/http drains as much). */
const DRAIN_BYTES = 256 * 1024;
/** After such an answer, how long a client still sending may go on before the connection is cut. */
const LINGER_MS = 500;

/**
 * For an answer given before the request's body was read (401, 404, 413, a refused form). Node
 * would read the rest off the wire to reuse the connection, however large; past DRAIN_BYTES the
 * connection is closed after the answer instead, so a stranger's 40 MiB cost nothing. Node closes
 * such a connection at once (`destroySoon`), and a close with unread bytes is a reset that may
 * reach a client still sending before it read the answer; so, as Apache and nginx do (lingering
 * close), the answer is followed by a half-close and what still arrives is dropped for LINGER_MS
 * before the connection is cut. Call it before the answer is sent.
 */
export function closeIfBodyLeftUnread(req: IncomingMessage, res: ServerResponse): void {
  if (req.complete) return;
  const length = Number(req.headers['content-length'] ?? 0);
  if (req.headers['transfer-encoding'] === undefined && length <= DRAIN_BYTES) return;
  res.setHeader('Connection', 'close');
  const socket = req.socket as Socket & { destroySoon(): void };
  socket.destroySoon = () => {
    socket.end();
    // Node's HTTP parser drops the body of an answered request (it was dumped) without copying it.
    req.resume();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
}
