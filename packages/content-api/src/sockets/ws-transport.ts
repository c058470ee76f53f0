import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { Logger } from '@muse/core';
import type { SocketSession } from './session.ts';
import type { ServerFrame } from './protocol.ts';
import type { Admitted, SocketSessions } from './sessions.ts';
import { isRefusal, type ConnectionGate } from './gate.ts';
import { guardUpgrade, refuseUpgrade } from './upgrade.ts';

export const WS_PATH = /^\/api\/v1\/conversations\/([^/]+)\/ws$/;
const SOCKET_IO_PATH = '/socket.io/';

/**
 * The plain WebSocket: one JSON object per text frame. Everything known at the handshake is
 * checked before the upgrade and refused with its HTTP status and a JSON error body: the gate's
 * caps (429/503), the token (401), the account (403), the conversation (404), the account's
 * socket cap (429). Close codes (4403, 4404, …) are only for what happens after the upgrade.
 * `ws` closes a socket whose frame exceeds the maximum with 1009; the heartbeat terminates a
 * socket that missed a ping's pong.
 */
export function attachWebSocket(
  server: HttpServer,
  sessions: SocketSessions,
  gate: ConnectionGate,
  limits: { maxFrameBytes: number; heartbeatMs: number },
  logger: Logger,
): { close(): Promise<void> } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxFrameBytes });
  const alive = new WeakMap<WebSocket, boolean>();

  const upgrade = async (socket: Duplex, req: IncomingMessage, head: Buffer): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const match = WS_PATH.exec(url.pathname);
    if (!match) {
      // socket.io upgrades its own path; anything else is not a WebSocket endpoint.
      if (!url.pathname.startsWith(SOCKET_IO_PATH)) {
        refuseUpgrade(socket, 404, { code: 'not_found', message: 'No WebSocket endpoint at this path' });
      }
      return;
    }
    const conversationId = decodedSegment(match[1]!);
    if (conversationId === undefined) {
      return refuseUpgrade(socket, 404, { code: 'not_found', message: 'No conversation with this id' });
    }
    const ticket = gate.enter(req);
    if (isRefusal(ticket)) {
      return refuseUpgrade(socket, ticket.status, ticket, {
        'Retry-After': String(ticket.retryAfterSeconds),
      });
    }
    // Whatever ends the connection (refusal, a client that leaves, the socket's close) frees its place.
    socket.once('close', () => ticket.release());
    const admitted = await sessions.admit(url.searchParams.get('token') ?? undefined, conversationId);
    if ('refusal' in admitted) {
      const { refusal } = admitted;
      return refuseUpgrade(socket, refusal.status, refusal, REFUSAL_HEADERS[refusal.status] ?? {});
    }
    if (socket.destroyed) return;
    ticket.admit();
    wss.handleUpgrade(req, socket, head, (ws) => {
      alive.set(ws, true);
      ws.on('pong', () => alive.set(ws, true));
      serve(ws, admitted).catch((error: unknown) => {
        logger.error({ err: error }, 'conversation socket failed; closing it');
        ws.close(1011, 'The server could not serve this socket; reconnect');
      });
    });
  };
  const guarded = guardUpgrade(logger, upgrade);
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => guarded(socket, req, head));

  async function serve(ws: WebSocket, admitted: Admitted): Promise<void> {
    // Frames that arrive before the session is open wait for it.
    const early: [RawData, boolean][] = [];
    let deliver = (data: RawData, isBinary: boolean): void => void early.push([data, isBinary]);
    ws.on('message', (data, isBinary) => deliver(data, isBinary));
    ws.on('error', () => ws.terminate());
    const opened = await sessions.open(admitted, {
      send: (frame) => ws.send(frameBytes(frame), { binary: false }),
      close: (code, reason) => ws.close(code, reason),
    });
    ws.once('close', () => sessions.close(opened));
    if (ws.readyState !== ws.OPEN) return sessions.close(opened);
    deliver = (data, isBinary) => receive(opened, data, isBinary);
    for (const [data, isBinary] of early.splice(0)) deliver(data, isBinary);
  }

  const heartbeat = setInterval(() => {
    for (const ws of wss.clients) {
      if (!alive.get(ws)) {
        ws.terminate();
        continue;
      }
      alive.set(ws, false);
      ws.ping();
    }
  }, limits.heartbeatMs);
  heartbeat.unref();

  return {
    async close() {
      clearInterval(heartbeat);
      const closed = [...wss.clients].map(
        (ws) =>
          new Promise<void>((resolve) => {
            ws.once('close', () => resolve());
            ws.close(1001, 'The server is shutting down; reconnect');
          }),
      );
      // A client that does not answer the close handshake is cut off.
      const cutOff = setTimeout(() => wss.clients.forEach((ws) => ws.terminate()), 2000);
      await Promise.all(closed);
      clearTimeout(cutOff);
      wss.close();
    },
  };
}

const encoded = new WeakMap<object, Buffer>();

/**
 * A frame's UTF-8 JSON, encoded once for all the sockets it goes to: the hub hands every socket of
 * a conversation the same frame, and every message frame the same message object (its key here).
 */
function frameBytes(frame: ServerFrame): Buffer {
  const key = frame.type === 'message' ? frame.message : frame;
  let bytes = encoded.get(key);
  if (!bytes) encoded.set(key, (bytes = Buffer.from(JSON.stringify(frame))));
  return bytes;
}

/** What a refusal's status tells the client beyond its body. */
const REFUSAL_HEADERS: Partial<Record<number, Record<string, string>>> = {
  401: { 'WWW-Authenticate': 'Bearer' },
  503: { 'Retry-After': '5' },
};

/** A path segment's text, or undefined when its percent-escapes do not decode. */
function decodedSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function receive(session: SocketSession, data: RawData, isBinary: boolean): void {
  let frame: unknown;
  try {
    frame = isBinary ? undefined : JSON.parse(data.toString());
  } catch {
    frame = undefined;
  }
  void session.receive(frame);
}
