import type { Server as HttpServer } from 'node:http';
import { Server, type Socket } from 'socket.io';
import type { Logger } from '@muse/core';
import type { Admitted, SocketSessions } from './sessions.ts';
import type { ServerFrame } from './protocol.ts';

type Ack = (answer: unknown) => void;

/**
 * socket.io on the same server: namespace `/conversations/<id>`, the token in the handshake's
 * `auth.token`. A refusal is a `connect_error` whose `data` is `{code, status, close_code}`, what
 * the plain socket would get. Each frame is an event named by its type; a client frame's
 * acknowledgement callback receives the server's answer to it.
 */
export function attachSocketIo(
  server: HttpServer,
  sessions: SocketSessions,
  limits: { maxFrameBytes: number; heartbeatMs: number },
  logger: Logger,
): { close(): Promise<void> } {
  const io = new Server(server, {
    path: '/socket.io',
    serveClient: false,
    // Other upgrade paths belong to the plain WebSocket.
    destroyUpgrade: false,
    maxHttpBufferSize: limits.maxFrameBytes,
    pingInterval: limits.heartbeatMs,
    pingTimeout: limits.heartbeatMs,
  });
  const conversations = io.of(/^\/conversations\/[^/]+$/);

  conversations.use((socket, next) => {
    const token = (socket.handshake.auth as { token?: unknown }).token;
    const conversationId = socket.nsp.name.slice('/conversations/'.length);
    sessions.admit(typeof token === 'string' ? token : undefined, conversationId).then(
      (admitted) => {
        if (!('refusal' in admitted)) {
          (socket.data as { admitted?: Admitted }).admitted = admitted;
          return next();
        }
        const { refusal } = admitted;
        const error = new Error(refusal.message) as Error & { data: unknown };
        error.data = { code: refusal.code, status: refusal.status, close_code: refusal.closeCode };
        next(error);
      },
      (error: unknown) => next(error as Error),
    );
  });

  conversations.on('connection', (socket) =>
    serve(socket).catch((error: unknown) => {
      logger.error({ err: error }, 'conversation socket failed; closing it');
      socket.disconnect(true);
    }),
  );

  async function serve(socket: Socket): Promise<void> {
    // Frames that arrive before the session is open wait for it.
    const early: [string, unknown, Ack | undefined][] = [];
    let receive = (type: string, payload: unknown, ack: Ack | undefined) =>
      void early.push([type, payload, ack]);
    socket.onAny((type: string, ...args: unknown[]) => {
      const ack = typeof args.at(-1) === 'function' ? (args.pop() as Ack) : undefined;
      receive(type, args[0], ack);
    });
    const session = await sessions.open((socket.data as { admitted: Admitted }).admitted, {
      send: (frame: ServerFrame) => socket.emit(frame.type, frame),
      // socket.io has no close codes: the reason goes out as an error frame, then the server disconnects.
      close: (code, reason) => {
        const errorCode =
          ({ 4401: 'unauthorized', 4404: 'not_found', 1011: 'internal_error' } as const)[code] ?? 'forbidden';
        socket.emit('error', { type: 'error', code: errorCode, message: `${reason} (${code})` });
        socket.disconnect(true);
      },
    });
    socket.once('disconnect', () => sessions.close(session));
    if (socket.disconnected) return sessions.close(session);
    receive = (type, payload, ack) => {
      const frame = typeof payload === 'object' && payload !== null ? { ...payload, type } : { type };
      void session.receive(frame).then((answer) => ack?.(answer));
    };
    for (const [type, payload, ack] of early.splice(0)) receive(type, payload, ack);
  }

  return {
    async close() {
      // Dropping every transport: clients see a transport close and reconnect (to another process).
      io.engine.close();
    },
  };
}
