import type { Transaction } from 'sequelize';
import { announcerOf, type Sequelize, one, rows } from '@muse/core';

/**
 * The one owner of conversation messages: storing them (numbered in storage order under the
 * conversation's row lock, once per client id or replied-to message) and announcing them on
 * the conversation's bus channel after the transaction commits (batched per process; listeners
 * read what an announcement lost by seq, see sockets/hub.ts). The REST route, the
 * sockets and the reply workflow all store through here.
 */
export interface ConversationMessage {
  id: string;
  conversation_id: string;
  author_id: string | null;
  role: 'user' | 'assistant' | 'system';
  content: string;
  seq: number;
  client_id: string | null;
  reply_to_id: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

/** The bus channel of a conversation; its sockets relay what is announced here. */
export const conversationChannel = (conversationId: string) => `conversation:${conversationId}`;

/**
 * What travels on `conversation:<id>` (in arrays, a process's batch): a stored message, a reply's
 * chunk, a reply's failure, or a change of who may read the conversation.
 */
export type ConversationEvent =
  | {
      type: 'message.created';
      conversation_id: string;
      message_id: string;
      role: string;
      seq: number;
      /** Present when it fits a notification; otherwise listeners read it by id. */
      message?: ConversationMessage;
      /**
       * The conversation's CONVERSATION_ACCESS when the message was stored: a listener that last
       * saw another value re-checks its readers before delivering (an access change's own
       * announcement may come later, on another bus).
       */
      access?: string;
    }
  | { type: 'reply.delta'; conversation_id: string; reply_to_id: string; index: number; text: string }
  | { type: 'reply.failed'; conversation_id: string; reply_to_id: string; code: string; message: string }
  /** Its visibility or owner changed, or it was deleted: its sockets check their access again. */
  | { type: 'access.changed'; conversation_id: string };

/** Who may read a conversation (its visibility and owner), as one comparable value. */
export const CONVERSATION_ACCESS = `visibility::text || ':' || coalesce(owner_id::text, '')`;

export const MESSAGE_COLUMNS =
  'id, conversation_id, author_id, role, content, seq, client_id, reply_to_id, created_at, updated_at';

/** Postgres caps a notification at 8000 bytes; a larger message is announced by id only. */
const INLINE_EVENT_BYTES = 7000;

export interface NewMessage {
  authorId: string | null;
  role: ConversationMessage['role'];
  content: string;
  clientId?: string | undefined;
  replyToId?: string | undefined;
}

/**
 * Stores a message unless the same author already stored this client id (or a reply to this
 * message exists): then answers that one with `created: false`, and nothing is published.
 */
export async function appendMessage(
  db: Sequelize,
  transaction: Transaction,
  conversationId: string,
  message: NewMessage,
): Promise<{ message: ConversationMessage; created: boolean }> {
  // The lock orders concurrent writers of one conversation: seq and commit order agree.
  const conversation = await one<{ access: string }>(
    db,
    `SELECT ${CONVERSATION_ACCESS} AS access FROM content.conversations WHERE id = :conversationId FOR UPDATE`,
    { conversationId },
    transaction,
  );
  const earlier = await findRepeat(db, transaction, conversationId, message);
  if (earlier) return { message: normalise(earlier), created: false };
  const row = await one<ConversationMessage>(
    db,
    `WITH numbered AS (
       UPDATE content.conversations SET message_seq = message_seq + 1, last_message_at = clock_timestamp(),
              updated_at = clock_timestamp()
        WHERE id = :conversationId RETURNING message_seq)
     INSERT INTO content.conversation_messages (conversation_id, author_id, role, content, seq, client_id, reply_to_id)
     SELECT :conversationId, :authorId, :role, :content, message_seq, :clientId, :replyToId FROM numbered
     RETURNING ${MESSAGE_COLUMNS}`,
    {
      conversationId,
      authorId: message.authorId,
      role: message.role,
      content: message.content,
      clientId: message.clientId ?? null,
      replyToId: message.replyToId ?? null,
    },
    transaction,
  );
  const stored = normalise(row!);
  publishConversationEvent(db, messageCreated(stored, conversation?.access), transaction);
  return { message: stored, created: true };
}

/** Announces `event` now, or after `transaction` commits (never when it rolls back). */
export function publishConversationEvent(
  db: Sequelize,
  event: ConversationEvent,
  transaction?: Transaction,
): void {
  const announce = () => announcerOf(db).announce(conversationChannel(event.conversation_id), event);
  if (transaction) transaction.afterCommit(announce);
  else announce();
}

/**
 * After `transaction` commits: who may read these conversations changed (visibility, owner) or
 * they were deleted. Every write of those columns calls it; nothing in the database announces.
 */
export function announceAccessChanged(
  db: Sequelize,
  transaction: Transaction,
  conversationIds: string[],
): void {
  for (const id of conversationIds)
    publishConversationEvent(db, { type: 'access.changed', conversation_id: id }, transaction);
}

function messageCreated(message: ConversationMessage, access: string | undefined): ConversationEvent {
  const event = {
    type: 'message.created' as const,
    conversation_id: message.conversation_id,
    message_id: message.id,
    role: message.role,
    seq: message.seq,
    ...(access === undefined ? {} : { access }),
  };
  const inline = { ...event, message };
  return Buffer.byteLength(JSON.stringify(inline)) <= INLINE_EVENT_BYTES ? inline : event;
}

async function findRepeat(
  db: Sequelize,
  transaction: Transaction,
  conversationId: string,
  message: NewMessage,
): Promise<ConversationMessage | undefined> {
  if (!message.clientId && !message.replyToId) return undefined;
  const row = await one<ConversationMessage>(
    db,
    `SELECT ${MESSAGE_COLUMNS} FROM content.conversation_messages
      WHERE conversation_id = :conversationId
        AND ((client_id = :clientId AND author_id IS NOT DISTINCT FROM :authorId) OR reply_to_id = :replyToId)`,
    {
      conversationId,
      clientId: message.clientId ?? null,
      authorId: message.authorId,
      replyToId: message.replyToId ?? null,
    },
    transaction,
  );
  return row;
}

export async function findMessage(db: Sequelize, id: string): Promise<ConversationMessage | undefined> {
  const row = await one<ConversationMessage>(
    db,
    `SELECT ${MESSAGE_COLUMNS} FROM content.conversation_messages WHERE id = :id`,
    { id },
  );
  return row ? normalise(row) : undefined;
}

/** Messages with `after < seq <= upTo`, in storage order (what a resuming client missed), at most `limit`. */
export async function messagesBetween(
  db: Sequelize,
  conversationId: string,
  range: { after: number; upTo: number },
  limit: number,
): Promise<ConversationMessage[]> {
  const found = await rows<ConversationMessage>(
    db,
    `SELECT ${MESSAGE_COLUMNS} FROM content.conversation_messages
      WHERE conversation_id = :conversationId AND seq > :after AND seq <= :upTo ORDER BY seq LIMIT :limit`,
    { conversationId, ...range, limit },
  );
  return found.map(normalise);
}

/** The latest messages, oldest first: the context a character's reply is written from. */
export async function latestMessages(
  db: Sequelize,
  conversationId: string,
  limit: number,
  transaction?: Transaction,
): Promise<ConversationMessage[]> {
  const found = await rows<ConversationMessage>(
    db,
    `SELECT ${MESSAGE_COLUMNS} FROM content.conversation_messages
      WHERE conversation_id = :conversationId ORDER BY seq DESC LIMIT :limit`,
    { conversationId, limit },
    transaction,
  );
  return found.map(normalise).reverse();
}

/** pg returns BIGINT as text. */
function normalise(row: ConversationMessage): ConversationMessage {
  return { ...row, seq: Number(row.seq) };
}
