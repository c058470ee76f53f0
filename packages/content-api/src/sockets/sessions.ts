import { one } from '@muse/core';
import type { ContentContext } from '../context.ts';
import { refusalOf, tooManySockets, type SocketAccess, type Refusal } from './admission.ts';
import type { SocketHub } from './hub.ts';
import type { CurrentUser } from '../auth/authenticate.ts';
import { SocketSession, type Transport } from './session.ts';

export interface Admitted {
  user: CurrentUser;
  conversationId: string;
  token: string;
  /** When the token expires (ms since the epoch): from then on nothing is delivered until `auth`. */
  expiresAt: number;
}

export const SHUTTING_DOWN: Refusal = {
  status: 503,
  closeCode: 1001,
  code: 'shutting_down',
  message: 'This server is shutting down; connect again',
};

/**
 * Opens sessions for both transports: admission (token, account, conversation, the cap on one
 * account's sockets), membership of the hub, and the `ready` frame.
 */
export class SocketSessions {
  closing = false;

  private readonly deps: { ctx: ContentContext; hub: SocketHub; access: SocketAccess };

  constructor(deps: { ctx: ContentContext; hub: SocketHub; access: SocketAccess }) {
    this.deps = deps;
  }

  /** The token and account checks alone: the refusal, or undefined for a valid token of an active account. */
  async account(token: string | undefined): Promise<Refusal | undefined> {
    if (this.closing) return SHUTTING_DOWN;
    try {
      await this.deps.access.account(token);
      return undefined;
    } catch (error) {
      return refusalOf(error);
    }
  }

  /** The checks of a new socket: its account and conversation, and the cap on one account's sockets. */
  async admit(token: string | undefined, conversationId: string): Promise<Admitted | { refusal: Refusal }> {
    if (this.closing) return { refusal: SHUTTING_DOWN };
    const { ctx, hub, access } = this.deps;
    const admitted = await access.admit(token, conversationId);
    if ('refusal' in admitted) return admitted;
    const limit = ctx.config.MUSE_WS_MAX_SOCKETS_PER_USER;
    if (hub.socketsOf(admitted.user.id) >= limit) return { refusal: tooManySockets(limit) };
    return {
      user: admitted.user,
      conversationId: String(admitted.conversation.id),
      token: token!,
      expiresAt: admitted.expiresAt,
    };
  }

  /** Joins the hub, then sends `ready`: listening first, then reading the latest seq, so nothing is missed. */
  async open(admitted: Admitted, transport: Transport): Promise<SocketSession> {
    const { ctx, hub, access } = this.deps;
    const session = new SocketSession(
      { ctx, access, logger: ctx.logger, rateLimit: ctx.config.MUSE_WS_RATE_LIMIT },
      admitted,
      transport,
    );
    await hub.join(session);
    session.start(await latestSeq(ctx, admitted.conversationId));
    return session;
  }

  close(session: SocketSession): void {
    session.closed = true;
    this.deps.hub.leave(session);
  }
}

async function latestSeq(ctx: ContentContext, conversationId: string): Promise<number> {
  const row = await one<{ message_seq: string }>(
    ctx.db,
    'SELECT message_seq FROM content.conversations WHERE id = :conversationId',
    { conversationId },
  );
  return Number(row?.message_seq ?? 0);
}
