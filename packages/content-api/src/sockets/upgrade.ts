import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '@muse/core';

/**
 * Answers an upgrade request with a plain HTTP status and a JSON error body (what the REST API
 * would answer) instead of switching protocols, then ends the connection.
 */
export function refuseUpgrade(
  socket: Duplex,
  status: number,
  error: { code: string; message: string },
  headers: Record<string, string> = {},
): void {
  if (socket.destroyed) return;
  const body = JSON.stringify({ code: error.code, message: error.message });
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    'Connection: close',
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

/**
 * The last resort around an upgrade handler: whatever it throws (or rejects with) is logged and
 * ends that one connection, never the process. A client that resets the connection while the
 * handler works is an `error` on the raw socket, which Node no longer listens to after `upgrade`.
 */
export function guardUpgrade<Args extends unknown[]>(
  logger: Logger,
  handler: (socket: Duplex, ...args: Args) => void | Promise<void>,
): (socket: Duplex, ...args: Args) => void {
  return (socket, ...args) => {
    socket.on('error', () => socket.destroy());
    const fail = (error: unknown) => {
      logger.error({ err: error }, 'socket upgrade failed; closing that connection');
      if (!socket.destroyed) refuseUpgrade(socket, 500, { code: 'internal_error', message: 'Try again' });
    };
    try {
      void Promise.resolve(handler(socket, ...args)).catch(fail);
    } catch (error) {
      fail(error);
    }
  };
}
