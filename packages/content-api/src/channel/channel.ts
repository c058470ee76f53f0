import type { Server as HttpServer } from 'node:http';
import type { ContentDeps } from '../app.ts';
import { createContentServices } from '../services.ts';
import { ChannelAccess } from './admission.ts';
import { ChannelHub } from './hub.ts';
import { ChannelSessions } from './sessions.ts';
import { attachSocketIo } from './socketio-transport.ts';
import { attachWebSocket } from './ws-transport.ts';

export interface ConversationChannel {
  /** Stops accepting sockets and closes the open ones with 1001 so clients reconnect elsewhere. */
  close(): Promise<void>;
}

/**
 * Serves the conversation channel on the content API's own HTTP server: the plain WebSocket at
 * /api/v1/conversations/{id}/ws and socket.io at /socket.io/ (namespace /conversations/{id}).
 * Both hand their sockets to the same sessions, so they carry the same frames.
 */
export function attachConversationChannel(server: HttpServer, deps: ContentDeps): ConversationChannel {
  const ctx = { ...deps, ...createContentServices(deps.config) };
  const hub = new ChannelHub(deps);
  const sessions = new ChannelSessions({ ctx, hub, access: new ChannelAccess(ctx) });
  const limits = {
    maxFrameBytes: deps.config.MUSE_WS_MAX_FRAME_BYTES,
    heartbeatMs: deps.config.MUSE_WS_HEARTBEAT_MS,
  };
  const transports = [
    attachWebSocket(server, sessions, limits, deps.logger),
    attachSocketIo(server, sessions, limits, deps.logger),
  ];
  return {
    async close() {
      sessions.closing = true;
      await Promise.all(transports.map((transport) => transport.close()));
    },
  };
}
