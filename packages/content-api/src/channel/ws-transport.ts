import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { ChannelSession } from './session.ts';
import type { ChannelSessions } from './sessions.ts';

export const WS_PATH = /^\/api\/v1\/conversations\/([^/]+)\/ws$/;
const SOCKET_IO_PATH = '/socket.io/';

/**
 * The plain WebSocket: one JSON object per text frame. The upgrade is accepted first and the
 * checks answer with close codes (4401/4403/4404/4429), which every client, browsers included,
 * can read; frames sent before `ready` wait for the checks. `ws` closes a socket whose frame
 * exceeds the maximum with 1009; the heartbeat terminates a socket that missed a ping's pong.
 */
export function attachWebSocket(
  server: HttpServer,
  sessions: ChannelSessions,
  limits: { maxFrameBytes: number; heartbeatMs: number },
): { close(): Promise<void> } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxFrameBytes });
  const alive = new WeakMap<WebSocket, boolean>();

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const match = WS_PATH.exec(url.pathname);
    if (!match) {
      // socket.io upgrades its own path; anything else is not a WebSocket endpoint.
      if (!url.pathname.startsWith(SOCKET_IO_PATH)) socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      alive.set(ws, true);
      ws.on('pong', () => alive.set(ws, true));
      void serve(ws, decodeURIComponent(match[1]!), url.searchParams.get('token') ?? undefined);
    });
  });

  async function serve(ws: WebSocket, conversationId: string, token: string | undefined): Promise<void> {
    // Frames that arrive before the checks are done wait for the session.
    const early: [RawData, boolean][] = [];
    let deliver = (data: RawData, isBinary: boolean): void => void early.push([data, isBinary]);
    ws.on('message', (data, isBinary) => deliver(data, isBinary));
    ws.on('error', () => ws.terminate());
    const admitted = await sessions.admit(token, conversationId);
    if ('refusal' in admitted) return ws.close(admitted.refusal.closeCode, admitted.refusal.message);
    const opened = await sessions.open(admitted, {
      send: (frame) => ws.send(JSON.stringify(frame)),
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

function receive(session: ChannelSession, data: RawData, isBinary: boolean): void {
  let frame: unknown;
  try {
    frame = isBinary ? undefined : JSON.parse(data.toString());
  } catch {
    frame = undefined;
  }
  void session.receive(frame);
}
