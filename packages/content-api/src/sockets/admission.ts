import { AppError, UnauthorizedError } from '@muse/core';
import type { Transaction } from 'sequelize';
import type { ContentContext } from '../context.ts';
import { loadUser, verifiedClaims, type CurrentUser } from '../auth/authenticate.ts';
import { authorizeRead, authorizeWrite, loadRow, notFound } from '../resources/access.ts';
import type { Row } from '../resources/define.ts';

/** Why a socket is refused or closed: the HTTP status it stands for and the WebSocket close code. */
export interface Refusal {
  status: 401 | 403 | 404 | 429 | 503;
  closeCode: 4401 | 4403 | 4404 | 4429 | 1001;
  code: string;
  message: string;
}

const CONVERSATIONS = 'content.conversations';
const ACCESS_COLUMNS = 'id, owner_id, visibility';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The checks of the REST API, applied to a socket: the token, the account (banned or disabled
 * answers 403 even with a valid token), and access to the conversation through the resource
 * mechanism (missing and another user's private conversation answer the same 404).
 */
export class SocketAccess {
  private readonly ctx: ContentContext;

  constructor(ctx: ContentContext) {
    this.ctx = ctx;
  }

  /** The account of a valid, unexpired token; throws 401 or 403 as the REST API would. */
  async account(token: string | undefined): Promise<CurrentUser> {
    return (await this.authenticate(token)).user;
  }

  /** The account of a valid, unexpired token and when the token expires (ms since the epoch). */
  async authenticate(token: string | undefined): Promise<{ user: CurrentUser; expiresAt: number }> {
    if (!token) throw new UnauthorizedError('Send the bearer token as ?token= (socket.io: auth.token)');
    const claims = verifiedClaims(this.ctx.tokens, token);
    return { user: await loadUser(this.ctx.db, claims.sub), expiresAt: claims.exp * 1000 };
  }

  /**
   * What the REST read of the conversation would answer this account now (its token aside):
   * undefined when it may still read it, else the refusal an open socket is closed with.
   */
  async recheck(userId: string, conversationId: string): Promise<Refusal | undefined> {
    try {
      await this.readable(await loadUser(this.ctx.db, userId), conversationId);
      return undefined;
    } catch (error) {
      return refusalOf(error);
    }
  }

  /** The conversation as GET /conversations/{id} would let this user read it; 404 otherwise. */
  async readable(user: CurrentUser, conversationId: string): Promise<Row> {
    const row = UUID.test(conversationId)
      ? await loadRow(this.ctx.db, CONVERSATIONS, conversationId, { columns: ACCESS_COLUMNS })
      : undefined;
    if (!row) throw notFound('conversation');
    authorizeRead(user, 'conversation', row);
    return row;
  }

  /** The conversation locked for a write by this user (posting to it is updating it). */
  async writable(user: CurrentUser, conversationId: string, transaction: Transaction): Promise<Row> {
    const row = await loadRow(this.ctx.db, CONVERSATIONS, conversationId, {
      columns: ACCESS_COLUMNS,
      transaction,
      lock: true,
    });
    if (!row) throw notFound('conversation');
    authorizeWrite(user, 'conversation', 'update', row);
    return row;
  }

  /** Admission of a new socket: its account and conversation, or the refusal. */
  async admit(
    token: string | undefined,
    conversationId: string,
  ): Promise<{ user: CurrentUser; expiresAt: number; conversation: Row } | { refusal: Refusal }> {
    try {
      const { user, expiresAt } = await this.authenticate(token);
      return { user, expiresAt, conversation: await this.readable(user, conversationId) };
    } catch (error) {
      return { refusal: refusalOf(error) };
    }
  }
}

/** 401/403/404 as close codes 4401/4403/4404; anything else is not a refusal and is rethrown. */
export function refusalOf(error: unknown): Refusal {
  if (!(error instanceof AppError) || ![401, 403, 404].includes(error.status)) throw error;
  const status = error.status as 401 | 403 | 404;
  return {
    status,
    closeCode: (4000 + status) as Refusal['closeCode'],
    code: error.code,
    message: error.message,
  };
}

export const tooManySockets = (limit: number): Refusal => ({
  status: 429,
  closeCode: 4429,
  code: 'too_many_sockets',
  message: `This account already has ${limit} open sockets on this server`,
});
