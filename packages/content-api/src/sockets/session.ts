import { AppError, type Logger, transact } from '@muse/core';
import type { ContentContext } from '../context.ts';
import type { CurrentUser } from '../auth/authenticate.ts';
import {
  appendMessage,
  findMessage,
  messagesBetween,
  type ConversationMessage,
} from '../conversations/messages.ts';
import { startReply } from '../conversations/replies.ts';
import { refusalOf, type SocketAccess, type Refusal } from './admission.ts';
import { parseClientFrame, type ClientFrame, type ServerFrame } from './protocol.ts';

/** How a session reaches its client, whatever the transport. */
export interface Transport {
  send(frame: ServerFrame): void;
  /** Ends the socket with a WebSocket close code (socket.io: an `error` frame, then disconnect). */
  close(code: number, reason: string): void;
}

interface SessionDeps {
  ctx: ContentContext;
  access: SocketAccess;
  logger: Logger;
  rateLimit: number;
}

/** Most messages one `resume` replays; the client resumes again from the last one for more. */
const RESUME_LIMIT = 500;
const RATE_WINDOW_MS = 10_000;

/**
 * One open socket of one account on one conversation. Client frames are handled one at a time
 * in arrival order; each (but ping and auth) re-checks the token, the account and access.
 * Each message is sent at most once per socket: live ones in storage order, and a resume replays,
 * in storage order, only those this socket has not sent (a live message that came before the
 * resume is not repeated: clients order by `seq`).
 */
export class SocketSession {
  readonly user: CurrentUser;
  readonly conversationId: string;
  private token: string;
  /** When the token expires (ms since the epoch); from then on nothing is delivered until `auth`. */
  private expiresAt: number;
  private tokenExpired = false;
  /** The client was told its token expired (once, when the first delivery was withheld). */
  private toldExpired = false;
  /** Access re-checks (or an `auth` replay) in flight: deliveries wait for them in `waiting`. */
  private holds = 0;
  private waiting: ServerFrame[] = [];
  /** The latest message sent live on this socket. */
  private lastSeq = 0;
  /** Every message with a seq above this one has been sent on this socket (live or replayed). */
  private sentFrom = 0;
  /** Live messages held back until `ready` is sent. */
  private held: ConversationMessage[] | undefined = [];
  private queue: Promise<unknown> = Promise.resolve();
  private windowStart = 0;
  private framesInWindow = 0;
  closed = false;

  private readonly deps: SessionDeps;
  private readonly transport: Transport;

  constructor(
    deps: SessionDeps,
    admitted: { user: CurrentUser; conversationId: string; token: string; expiresAt: number },
    transport: Transport,
  ) {
    this.deps = deps;
    this.transport = transport;
    this.user = admitted.user;
    this.conversationId = admitted.conversationId;
    this.token = admitted.token;
    this.expiresAt = admitted.expiresAt;
  }

  /** The socket is in: `ready`, then whatever was stored after `lastSeq` meanwhile. */
  start(lastSeq: number): void {
    this.lastSeq = lastSeq;
    this.sentFrom = lastSeq;
    this.send({
      type: 'ready',
      conversation_id: this.conversationId,
      user_id: this.user.id,
      last_seq: lastSeq,
    });
    this.release();
  }

  /**
   * Handles a client frame after those before it. Its direct answer (`ack`, `error`, `pong`, …) is
   * sent once: to `reply` when given (a socket.io acknowledgement callback), else as a frame.
   */
  receive(raw: unknown, reply?: (frame: ServerFrame) => void): Promise<void> {
    // The last resort: a frame whose handling throws ends this socket (1011), never the process.
    const answer = this.queue
      .then(async () => {
        const frame = await this.handle(raw);
        if (!frame || this.closed) return;
        if (reply) reply(frame);
        else this.send(frame);
      })
      .catch((error: unknown) => {
        this.deps.logger.error({ err: error }, 'conversation frame failed; closing the socket');
        this.close(1011, 'The server could not handle a frame; reconnect');
      });
    this.queue = answer;
    return answer;
  }

  /**
   * A frame published for the conversation (or the user) reaches this socket: after any access
   * re-check in flight, and only while the token is valid (after its expiry the client is told
   * once; the messages it missed are replayed after `auth`).
   */
  deliver(frame: ServerFrame): void {
    if (this.holds > 0) return void this.waiting.push(frame);
    if (this.expired()) return this.withhold();
    if (frame.type !== 'message') return this.send(frame);
    if (this.held) return void this.held.push(frame.message);
    this.sendMessage(frame.message);
  }

  /**
   * Checks the account and its access to the conversation again (a change announced by the
   * database); closes the socket with the refusal's code. Holds deliveries from its first step.
   */
  async recheck(): Promise<void> {
    await this.holding(async () => {
      const refusal = await this.deps.access
        .recheck(this.user.id, this.conversationId)
        .catch((error: unknown) => {
          this.deps.logger.error({ err: error }, 'socket access re-check failed; closing the socket');
          return { closeCode: 1011, message: 'The server could not check access; reconnect' };
        });
      if (refusal) this.close(refusal.closeCode, refusal.message);
    });
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.transport.close(code, reason.slice(0, 120));
  }

  private async handle(raw: unknown): Promise<ServerFrame | undefined> {
    if (this.closed) return undefined;
    const limited = this.rateLimited();
    if (limited) return limited;
    const parsed = parseClientFrame(raw);
    if ('problem' in parsed) {
      return {
        type: 'error',
        code: 'invalid_frame',
        message: `Not a valid frame: ${parsed.problem}`,
      };
    }
    try {
      return await this.dispatch(parsed.frame);
    } catch (error) {
      return this.failure(error, parsed.frame);
    }
  }

  private async dispatch(frame: ClientFrame): Promise<ServerFrame | undefined> {
    switch (frame.type) {
      case 'ping':
        return { type: 'pong' };
      case 'auth':
        return this.reauthenticate(frame.token);
      case 'post':
        return this.post(frame);
      case 'resume':
        return this.resume(frame.after);
    }
  }

  /**
   * The account, checked again for this frame: undefined once the token has expired (until an
   * `auth` frame brings a fresh one); a banned or disabled account closes the socket.
   */
  private async account(): Promise<CurrentUser | undefined> {
    if (this.expired()) return undefined;
    try {
      return await this.deps.access.account(this.token);
    } catch (error) {
      const status = (error as AppError).status;
      if (status === 401) this.tokenExpired = true;
      else if (status === 403) throw new SocketClosing(refusalOf(error));
      else throw error;
      return undefined;
    }
  }

  /** A fresh token of the same account; what was withheld since the old one expired is replayed. */
  private async reauthenticate(token: string): Promise<ServerFrame> {
    const fresh = await this.deps.access.authenticate(token).catch((error: unknown) => {
      if ((error as AppError).status === 401) return undefined;
      throw error;
    });
    if (!fresh || fresh.user.id !== this.user.id) {
      return {
        type: 'error',
        code: 'unauthorized',
        message: 'The token is not a valid token of this account',
      };
    }
    const hadExpired = this.expired();
    this.token = token;
    this.expiresAt = fresh.expiresAt;
    this.tokenExpired = false;
    this.toldExpired = false;
    if (hadExpired) await this.holding(() => this.replayAfter(fresh.user, this.lastSeq));
    return { type: 'authenticated', user_id: fresh.user.id };
  }

  private async post(frame: { content: string; client_id: string }): Promise<ServerFrame> {
    const user = await this.account();
    if (!user) return { ...TOKEN_EXPIRED, client_id: frame.client_id };
    const { ctx, access } = this.deps;
    const { message, created } = await transact(ctx.db, async (transaction) => {
      await access.writable(user, this.conversationId, transaction);
      return appendMessage(ctx.db, transaction, this.conversationId, {
        authorId: user.id,
        role: 'user',
        content: frame.content,
        clientId: frame.client_id,
      });
    });
    if (created) {
      void startReply(ctx, message);
    }
    return {
      type: 'ack',
      client_id: frame.client_id,
      message_id: message.id,
      seq: message.seq,
      duplicate: !created,
    };
  }

  private async resume(after: string): Promise<ServerFrame> {
    const user = await this.account();
    if (!user) return TOKEN_EXPIRED;
    await this.deps.access.readable(user, this.conversationId);
    const from = await findMessage(this.deps.ctx.db, after);
    if (!from || from.conversation_id !== this.conversationId) {
      return { type: 'error', code: 'not_found', message: 'No message with this id in this conversation' };
    }
    // Only what this socket has not sent: messages after `from`, up to where its sends begin.
    const missed = await messagesBetween(
      this.deps.ctx.db,
      this.conversationId,
      { after: from.seq, upTo: this.sentFrom },
      RESUME_LIMIT,
    );
    for (const message of missed) this.send({ type: 'message', message });
    // Replayed to the end: everything after `from` has now been sent here.
    if (missed.length < RESUME_LIMIT) this.sentFrom = Math.min(this.sentFrom, from.seq);
    return { type: 'resumed', after, count: missed.length };
  }

  /** The messages after `seq` (as `resume` replays them), once access is checked again. */
  private async replayAfter(user: CurrentUser, seq: number): Promise<void> {
    await this.deps.access.readable(user, this.conversationId);
    const missed = await messagesBetween(
      this.deps.ctx.db,
      this.conversationId,
      { after: seq, upTo: Number.MAX_SAFE_INTEGER },
      RESUME_LIMIT,
    );
    for (const message of missed) this.sendMessage(message);
  }

  /** Runs `step` with deliveries held; what arrived meanwhile is delivered after it. */
  private async holding(step: () => Promise<void>): Promise<void> {
    this.holds++;
    try {
      await step();
    } finally {
      if (--this.holds === 0) for (const frame of this.waiting.splice(0)) this.deliver(frame);
    }
  }

  private expired(): boolean {
    if (!this.tokenExpired && Date.now() >= this.expiresAt) this.tokenExpired = true;
    return this.tokenExpired;
  }

  /** A delivery after the token expired: the client is told once, and `auth` replays the messages. */
  private withhold(): void {
    if (this.toldExpired) return;
    this.toldExpired = true;
    this.send(TOKEN_EXPIRED);
  }

  private release(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const message of held) this.sendMessage(message);
  }

  private sendMessage(message: ConversationMessage): void {
    if (message.seq <= this.lastSeq) return;
    this.lastSeq = message.seq;
    this.send({ type: 'message', message });
  }

  /** A ban or lost access closes the socket; a write the caller may not make is an error frame. */
  private failure(error: unknown, frame: ClientFrame): ServerFrame | undefined {
    const clientId = frame.type === 'post' ? { client_id: frame.client_id } : {};
    if (error instanceof SocketClosing || (error instanceof AppError && error.status === 404)) {
      const refusal = error instanceof SocketClosing ? error.refusal : refusalOf(error);
      this.close(refusal.closeCode, refusal.message);
      return undefined;
    }
    if (error instanceof AppError && error.status === 403) {
      return { type: 'error', code: 'forbidden', message: error.message, ...clientId };
    }
    this.deps.logger.error({ err: error, frame: frame.type }, 'conversation frame failed');
    return {
      type: 'error',
      code: 'internal_error',
      message: 'The frame could not be handled; try again',
      ...clientId,
    };
  }

  private rateLimited(): ServerFrame | undefined {
    const now = Date.now();
    if (now - this.windowStart >= RATE_WINDOW_MS) {
      this.windowStart = now;
      this.framesInWindow = 0;
    }
    if (++this.framesInWindow <= this.deps.rateLimit) return undefined;
    return {
      type: 'error',
      code: 'rate_limited',
      message: `At most ${this.deps.rateLimit} frames per ${RATE_WINDOW_MS / 1000} s`,
      retry_after_ms: this.windowStart + RATE_WINDOW_MS - now,
    };
  }

  private send(frame: ServerFrame): void {
    if (!this.closed) this.transport.send(frame);
  }
}

const TOKEN_EXPIRED = {
  type: 'error',
  code: 'token_expired',
  message: 'The token has expired: send {"type": "auth", "token": "<fresh token>"} to continue',
} as const;

/** Thrown when a frame's checks end the socket (a banned account). */
class SocketClosing extends Error {
  readonly refusal: Refusal;

  constructor(refusal: Refusal) {
    super(refusal.message);
    this.refusal = refusal;
  }
}
