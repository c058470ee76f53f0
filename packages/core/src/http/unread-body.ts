import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Unread body bytes Node may read off the wire to keep the connection (Go's net/http drains as much). */
const DRAIN_BYTES = 256 * 1024;
/** After such an answer, how long a client still sending has to read it before the connection is cut. */
const LINGER_MS = 2000;

/**
 * For an answer given before the request's body was read (401, 404, 413, a refused form). Node
 * would read the rest off the wire to reuse the connection, however large; past DRAIN_BYTES the
 * connection is closed after the answer instead, so a stranger's 40 MiB cost nothing. Node closes
 * such a connection at once (`destroySoon`), and a close with unread bytes is a reset that can
 * reach a client still sending before it read the answer (it then sees EPIPE, not the 401). So,
 * like a lingering close: the answer, a half-close, nothing more read (the client's writes just
 * stall), and the connection cut LINGER_MS later. Measured against reading and dropping the rest
 * meanwhile, this loses no answer and costs no memory. Call it before the answer is sent.
 */
export function closeIfBodyLeftUnread(req: IncomingMessage, res: ServerResponse): void {
  if (req.complete) return;
  const length = Number(req.headers['content-length'] ?? 0);
  if (req.headers['transfer-encoding'] === undefined && length <= DRAIN_BYTES) return;
  res.setHeader('Connection', 'close');
  const socket = req.socket as Socket & { destroySoon(): void };
  socket.destroySoon = () => {
    socket.end();
    // Node has just resumed the request to drop its body, which restarts the socket's reading on
    // the next turn of the loop: stop it after that.
    setImmediate(() => socket.pause());
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
}
