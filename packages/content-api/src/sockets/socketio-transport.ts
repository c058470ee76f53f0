import type { Duplex } from 'node:stream';
import { ServerResponse, type IncomingMessage, type Server as HttpServer } from 'node:http';
import { Server, type Socket } from 'socket.io';
import type { Logger } from '@muse/core';
import type { Admitted, SocketSessions } from './sessions.ts';
import type { ServerFrame } from './protocol.ts';
import type { Refusal } from './admission.ts';
import { isRefusal, type ConnectionGate, type Ticket } from './gate.ts';
import { refuseUpgrade } from './upgrade.ts';

type Ack = (answer: unknown) => void;

/**
 * socket.io on the same server: namespace `/conversations/<id>`, the token in the handshake's
 * `auth.token`. The gate's caps are taken at the Engine.IO handshake (HTTP 429/503 before any
 * connection exists); a connection that no namespace admits within the admission timeout is
 * closed. A refusal is a `connect_error` whose `data` is `{code, status, close_code}`, what the
 * plain socket would get; the root namespace serves nothing and refuses every handshake. Each
 * frame is an event named by its type; a client frame's acknowledgement callback receives the
 * server's answer to it.
 */
export function attachSocketIo(
  server: HttpServer,
  sessions: SocketSessions,
  gate: ConnectionGate,
  limits: { maxFrameBytes: number; heartbeatMs: number; admissionTimeoutMs: number },
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
    connectTimeout: limits.admissionTimeoutMs,
  });
  const tickets = gateEngine(io, gate);
  const conversations = io.of(/^\/conversations\/[^/]+$/);

  io.of('/').use((socket, next) => {
    const token = tokenOf(socket);
    sessions.account(token).then(
      (refusal) => next(connectError(refusal ?? NOTHING_HERE)),
      (error: unknown) => next(error as Error),
    );
  });

  conversations.use((socket, next) => {
    const conversationId = socket.nsp.name.slice('/conversations/'.length);
    sessions.admit(tokenOf(socket), conversationId).then(
      (admitted) => {
        if ('refusal' in admitted) return next(connectError(admitted.refusal));
        (socket.data as { admitted?: Admitted }).admitted = admitted;
        tickets.get(socket.conn)?.admit();
        next();
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
      void session.receive(frame, ack);
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

/**
 * Takes the gate's place at each Engine.IO handshake (both transports) and frees it when the
 * connection closes, or when the handshake ends without one. The answer is the connection's ticket.
 */
function gateEngine(io: Server, gate: ConnectionGate): WeakMap<object, Ticket> {
  const byRequest = new WeakMap<IncomingMessage, Ticket>();
  const byConnection = new WeakMap<object, Ticket>();
  io.engine.use((req: IncomingMessage, res: ServerResponse, next: (error?: Error) => void) => {
    const query = new URL(req.url ?? '/', 'http://localhost').searchParams;
    // Engine.IO 4 only: an older client would be switched to a WebSocket, then dropped.
    if (query.get('EIO') !== '4') {
      return refuseHandshake(res, 400, {
        code: 'unsupported_protocol',
        message: 'Only Engine.IO 4 (socket.io 3 and later) is served: EIO=4',
      });
    }
    // Requests of an open connection (a poll, its upgrade) carry its sid and were counted at its handshake.
    if (query.has('sid')) return next();
    const ticket = gate.enter(req);
    if (isRefusal(ticket)) {
      return refuseHandshake(res, ticket.status, ticket, { 'Retry-After': String(ticket.retryAfterSeconds) });
    }
    byRequest.set(req, ticket);
    // A client gone before the handshake ends leaves neither a connection nor a connection_error.
    req.socket.once('close', () => byRequest.get(req)?.release());
    next();
  });
  io.engine.on(
    'connection',
    (connection: { request: IncomingMessage; once(event: 'close', f: () => void): void }) => {
      const ticket = byRequest.get(connection.request);
      if (!ticket) return;
      byRequest.delete(connection.request);
      byConnection.set(connection, ticket);
      connection.once('close', () => ticket.release());
    },
  );
  io.engine.on('connection_error', ({ req }: { req: IncomingMessage }) => byRequest.get(req)?.release());
  return byConnection;
}

/** A status with a JSON error body, on either the polling response or the raw socket of an upgrade. */
function refuseHandshake(
  res: ServerResponse,
  status: number,
  refusal: { code: string; message: string },
  headers: Record<string, string> = {},
): void {
  const error = { code: refusal.code, message: refusal.message };
  if (!(res instanceof ServerResponse)) {
    return refuseUpgrade((res as { socket: Duplex }).socket, status, error, headers);
  }
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(error));
}

const tokenOf = (socket: Socket): string | undefined => {
  const token = (socket.handshake.auth as { token?: unknown }).token;
  return typeof token === 'string' ? token : undefined;
};

const NOTHING_HERE: Refusal = {
  status: 404,
  closeCode: 4404,
  code: 'not_found',
  message: 'Nothing is served on this namespace: connect to /conversations/{conversation_id}',
};

/** A refusal as socket.io's `connect_error`: `data` says what the plain socket would get. */
function connectError(refusal: Refusal): Error {
  const error = new Error(refusal.message) as Error & { data: unknown };
  error.data = { code: refusal.code, status: refusal.status, close_code: refusal.closeCode };
  return error;
}
