import type { Server as HttpServer } from 'node:http';
import type { Express } from 'express';
import { contentContextOf } from '../app.ts';
import { SocketAccess } from './admission.ts';
import { ConnectionGate } from './gate.ts';
import { SocketHub } from './hub.ts';
import { SocketSessions } from './sessions.ts';
import { attachSocketIo } from './socketio-transport.ts';
import { attachWebSocket } from './ws-transport.ts';

export interface ConversationSockets {
  /** Stops accepting sockets and closes the open ones with 1001 so clients reconnect elsewhere. */
  close(): Promise<void>;
}

/**
 * Serves the conversation sockets on the content API's own HTTP server, with the context `app`
 * was built with: the plain WebSocket at /api/v1/conversations/{id}/ws and socket.io at
 * /socket.io/ (namespace /conversations/{id}). Both hand their sockets to the same sessions, so
 * they carry the same frames.
 */
export function attachConversationSockets(server: HttpServer, app: Express): ConversationSockets {
  const ctx = contentContextOf(app);
  const hub = new SocketHub({
    db: ctx.db,
    bus: ctx.bus,
    logger: ctx.logger,
  });
  const sessions = new SocketSessions({ ctx, hub, access: new SocketAccess(ctx) });
  const { config } = ctx;
  const gate = new ConnectionGate(
    { perAddress: config.MUSE_WS_MAX_SOCKETS_PER_ADDRESS, pending: config.MUSE_WS_MAX_PENDING },
    app,
  );
  const limits = {
    maxFrameBytes: config.MUSE_WS_MAX_FRAME_BYTES,
    heartbeatMs: config.MUSE_WS_HEARTBEAT_MS,
    admissionTimeoutMs: config.MUSE_WS_ADMISSION_TIMEOUT_MS,
  };
  const transports = [
    attachWebSocket(server, sessions, gate, limits, ctx.logger),
    attachSocketIo(server, sessions, gate, limits, ctx.logger),
  ];
  return {
    async close() {
      sessions.closing = true;
      await Promise.all(transports.map((transport) => transport.close()));
    },
  };
}
