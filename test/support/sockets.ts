import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { io, type Socket } from 'socket.io-client';
import { vi } from 'vitest';
import WebSocket from 'ws';

/** A server frame as a test reads it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read frames loosely; the AsyncAPI document checks them
export type Frame = { type: string; [key: string]: any };

/**
 * Checks every frame a client receives against the AsyncAPI document the server serves: the
 * frame's `type` names its message, whose payload schema must accept it.
 */
export class FrameChecker {
  readonly violations: string[] = [];
  private readonly validators = new Map<string, ValidateFunction>();

  static async load(baseUrl: string): Promise<FrameChecker> {
    const document = (await (await fetch(`${baseUrl}/asyncapi.json`)).json()) as AsyncApiDocument;
    return new FrameChecker(document);
  }

  private constructor(document: AsyncApiDocument) {
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats.default(ajv);
    ajv.addSchema(document, 'asyncapi');
    const sent = document.operations.sendServerFrames.messages.map((ref) => ref.$ref.split('/').at(-1)!);
    for (const name of sent) {
      const message = document.components.messages[name]!;
      this.validators.set(name, ajv.compile({ $ref: `asyncapi${message.payload.$ref}` }));
    }
  }

  check(frame: Frame): void {
    const validate = this.validators.get(frame.type);
    if (!validate) return void this.violations.push(`undocumented frame type ${JSON.stringify(frame)}`);
    if (!validate(frame)) {
      this.violations.push(`${JSON.stringify(frame)}: ${JSON.stringify(validate.errors)}`);
    }
  }
}

interface AsyncApiDocument {
  operations: { sendServerFrames: { messages: { $ref: string }[] } };
  components: { messages: Record<string, { payload: { $ref: string } }> };
}

/** What both kinds of test client offer: the frames received so far and waiting for one. */
export interface ChannelClient {
  frames: Frame[];
  /** Resolves with the first received frame (from `from` on) that matches. */
  next(match: (frame: Frame) => boolean, from?: number): Promise<Frame>;
  send(frame: Frame): void;
  close(): void;
}

function waitFor(frames: Frame[], match: (frame: Frame) => boolean, from = 0): Promise<Frame> {
  return vi.waitFor(
    () => {
      const found = frames.slice(from).find(match);
      if (!found) throw new Error(`no matching frame yet; received ${JSON.stringify(frames.slice(-5))}`);
      return found;
    },
    { timeout: 45_000, interval: 20 },
  );
}

export interface WsClient extends ChannelClient {
  ws: WebSocket;
  /** The close code and reason, once the socket is closed. */
  closed: Promise<{ code: number; reason: string }>;
  /** Resolves once open (or rejects when refused before opening). */
  opened: Promise<void>;
  /** Resolves with the HTTP answer when the server refuses the upgrade (rejects once open). */
  refused: Promise<WsRefusal>;
}

/** An upgrade the server refused: its HTTP status, headers and JSON error body. */
export interface WsRefusal {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Frame;
}

/** A plain `ws` client on a conversation's socket; its frames are checked as they arrive. */
export function wsClient(
  baseUrl: string,
  conversationId: string,
  token: string | undefined,
  checker: FrameChecker,
): WsClient {
  const query = token === undefined ? '' : `?token=${encodeURIComponent(token)}`;
  const ws = new WebSocket(
    `${baseUrl.replace(/^http/, 'ws')}/api/v1/conversations/${conversationId}/ws${query}`,
  );
  const frames: Frame[] = [];
  ws.on('message', (data) => {
    const frame = JSON.parse(data.toString()) as Frame;
    checker.check(frame);
    frames.push(frame);
  });
  ws.on('error', () => {});
  const opened = new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(new Error(`refused with ${res.statusCode}`)));
  });
  const refused = new Promise<WsRefusal>((resolve, reject) => {
    ws.once('open', () => reject(new Error('the upgrade was accepted')));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(body) as Frame }),
      );
    });
  });
  // A test awaits the one it expects; the other settling unobserved is not an error.
  opened.catch(() => {});
  refused.catch(() => {});
  return {
    ws,
    frames,
    next: (match, from) => waitFor(frames, match, from),
    send: (frame) => ws.send(JSON.stringify(frame)),
    close: () => ws.terminate(),
    closed: new Promise((resolve) =>
      ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    ),
    opened,
    refused,
  };
}

export interface IoClient extends ChannelClient {
  socket: Socket;
  /** Emits a client frame and resolves with the server's answer (the acknowledgement). */
  request(frame: Frame): Promise<Frame>;
}

/** A socket.io client on a conversation's namespace, the token in the handshake's auth. */
export function ioClient(
  baseUrl: string,
  conversationId: string,
  token: string | undefined,
  checker: FrameChecker,
  options: { reconnection?: boolean } = {},
): IoClient {
  const socket = io(`${baseUrl}/conversations/${conversationId}`, {
    auth: token === undefined ? {} : { token },
    transports: ['websocket'],
    reconnection: options.reconnection ?? false,
    forceNew: true,
  });
  const frames: Frame[] = [];
  socket.onAny((_event: string, frame: Frame) => {
    checker.check(frame);
    frames.push(frame);
  });
  const emit = ({ type, ...payload }: Frame) => [type, payload] as const;
  return {
    socket,
    frames,
    next: (match, from) => waitFor(frames, match, from),
    send: (frame) => void socket.emit(...emit(frame)),
    request: (frame) => socket.timeout(20_000).emitWithAck(...emit(frame)) as Promise<Frame>,
    close: () => void socket.disconnect(),
  };
}

/** Resolves with the `connect_error` of a refused socket.io handshake. */
export function ioRefusal(client: {
  socket: Socket;
}): Promise<Error & { data?: { code: string; status: number; close_code: number } }> {
  return new Promise((resolve, reject) => {
    client.socket.once('connect_error', resolve);
    client.socket.once('connect', () => reject(new Error('the handshake was accepted')));
  });
}
