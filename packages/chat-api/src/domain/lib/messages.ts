import type { Sequelize } from '@muse/core';
import { JsonableError } from '../errors.ts';
import type { Actor } from '../context.ts';
import { one, rows } from '../sql.ts';
import { canReadHistory, streamById, streamByName, type Stream } from './streams.ts';
import { userByEmailVisibleTo, userById, usersByIds } from './users.ts';
import { formatMessage } from '../presenters/messages.ts';
import { receivedMessages, USER_FLAGS, USER_FLAGS_JOINS } from './user-messages.ts';

export interface MessageRow {
  id: string;
  sender_id: number;
  stream_id: number | null;
  recipient_ids: number[] | null;
  topic: string;
  content: string;
  rendered_content: string;
  client: string;
  date_sent: Date;
  last_edit_time?: Date | null;
  last_moved_time?: Date | null;
  /** Zulip's reaction records, when the query aggregated them (see REACTIONS_SQL). */
  reactions?: Record<string, unknown>[];
}

/** A select-list item aggregating a message `m`'s reactions into Zulip's records. */
export const REACTIONS_SQL = `COALESCE((SELECT jsonb_agg(jsonb_build_object('emoji_name', r.emoji_name,
  'emoji_code', r.emoji_code, 'reaction_type', r.reaction_type, 'user_id', r.user_id) ORDER BY r.created_at)
  FROM chat.reactions r WHERE r.message_id = m.id), '[]'::jsonb) AS reactions`;

export type Destination =
  { kind: 'stream'; to: string | number; topic: string } | { kind: 'direct'; to: (string | number)[] };

/** A channel named by id or name, or the error Zulip gives for it. */
export async function resolveStream(actor: Actor, to: string | number): Promise<Stream> {
  const stream =
    typeof to === 'number'
      ? await streamById(actor.db, actor.realm.id, to)
      : await streamByName(actor.db, actor.realm.id, to);
  if (!stream) {
    if (typeof to === 'number') {
      throw new JsonableError(`Channel with ID '${to}' does not exist`, {
        code: 'STREAM_DOES_NOT_EXIST',
        extra: { stream_id: to },
      });
    }
    throw new JsonableError(`Channel '${to}' does not exist`, {
      code: 'STREAM_DOES_NOT_EXIST',
      extra: { stream: to },
    });
  }
  return stream;
}

/** The newest message the user has received (-1 before the first). */
export async function maxMessageId(db: Sequelize, userId: number): Promise<number> {
  const max = await one<{ id: string | null }>(
    db,
    `SELECT max(id) AS id FROM (${receivedMessages({ order: 'DESC', limit: 'one' })}) m`,
    { userId, one: 1 },
  );
  return max?.id ? Number(max.id) : -1;
}

export interface NarrowTerm {
  operator: string;
  operand: unknown;
  negated?: boolean;
}

/** Zulip's legacy list narrow [["stream", "x"]] and the object form [{operator, operand}], as both GETs read them. */
export function narrowTerms(narrow: unknown[]): NarrowTerm[] {
  return narrow.map((term) => {
    if (Array.isArray(term) && term.length === 2) return { operator: String(term[0]), operand: term[1] };
    if (term && typeof term === 'object' && 'operator' in term && 'operand' in term)
      return term as NarrowTerm;
    throw new JsonableError('Invalid narrow');
  });
}

/** The `anchor` Zulip reports for `newest`: larger than any message id. */
export const LARGER_THAN_MAX_MESSAGE_ID = 10_000_000_000_000_000;

/** GET /messages: the caller's messages around an anchor, filtered by the basic narrow operators. */
export async function getMessages(
  actor: Actor,
  query: {
    anchor: string;
    numBefore: number;
    numAfter: number;
    narrow: NarrowTerm[];
    applyMarkdown?: boolean;
  },
): Promise<Record<string, unknown>> {
  const { db, user, realm } = actor;
  const where: string[] = [];
  const repl: Record<string, unknown> = { userId: user.id };
  let historyOf: Stream | undefined;
  for (const [i, term] of query.narrow.entries()) {
    const key = `o${i}`;
    // Every operator takes a channel/user id or a string; anything else would reach the SQL as a list.
    if (typeof term.operand !== 'string' && typeof term.operand !== 'number') {
      throw new JsonableError(`Invalid narrow operand for '${term.operator}'`);
    }
    const not = term.negated ? 'NOT ' : '';
    switch (term.operator) {
      case 'channel':
      case 'stream': {
        const stream = await resolveStream(actor, term.operand);
        where.push(`${not}(m.stream_id = :${key})`);
        repl[key] = stream.id;
        if (!term.negated && (await canReadHistory(db, user, stream))) historyOf = stream;
        break;
      }
      case 'topic':
        where.push(`${not}(lower(m.topic) = lower(:${key}))`);
        repl[key] = String(term.operand);
        break;
      case 'sender': {
        const sender =
          typeof term.operand === 'number'
            ? await userById(db, realm.id, term.operand)
            : await userByEmailVisibleTo(db, realm, actor.config, user, String(term.operand));
        where.push(`${not}(m.sender_id = :${key})`);
        repl[key] = sender?.id ?? -1;
        break;
      }
      case 'is':
        if (term.operand === 'dm' || term.operand === 'private') where.push(`${not}(m.stream_id IS NULL)`);
        else throw new JsonableError(`Invalid narrow operator: unknown 'is' operand`);
        break;
      default:
        throw new JsonableError(`Invalid narrow operator: unknown operator`);
    }
  }
  if (historyOf) repl.historyOf = historyOf.id;
  // `first_unread`: the oldest unread message of the narrow, else as `newest` (Zulip's rule).
  let anchor = query.anchor;
  if (anchor === 'first_unread') {
    const unread = await one<{ id: string }>(
      db,
      `SELECT id FROM (${receivedMessages({ where, unread: true, order: 'ASC', limit: 'one' })}) m`,
      { ...repl, one: 1 },
    );
    anchor = unread ? unread.id : 'newest';
  }
  const newest = anchor === 'newest';
  const anchorId = newest ? Number.MAX_SAFE_INTEGER : anchor === 'oldest' ? 0 : Number(anchor);
  if (!/^(newest|oldest|\d+)$/.test(anchor) || !Number.isFinite(anchorId))
    throw new JsonableError('Invalid anchor');
  const page = (side: 'before' | 'after') => {
    const condition = side === 'before' ? 'm.id < :anchor' : 'm.id >= :anchor';
    const order = side === 'before' ? 'DESC' : 'ASC';
    // A channel whose history the user may read is read from the messages themselves; messages
    // the user never received carry Zulip's flags for such history.
    return historyOf
      ? `SELECT m.*, ${REACTIONS_SQL},
           COALESCE(${USER_FLAGS}, ARRAY['read', 'historical']) AS flags
         FROM chat.messages m ${USER_FLAGS_JOINS} WHERE ${['m.stream_id = :historyOf', condition, ...where].join(' AND ')}
         ORDER BY m.id ${order} LIMIT :n`
      : `SELECT m.*, ${REACTIONS_SQL}
         FROM (${receivedMessages({ where: [condition, ...where], order, limit: 'n' })}) m ORDER BY m.id ${order}`;
  };
  const before = await rows<MessageRow & { flags: string[] }>(db, page('before'), {
    ...repl,
    anchor: anchorId,
    n: query.numBefore + 1,
  });
  const after = await rows<MessageRow & { flags: string[] }>(db, page('after'), {
    ...repl,
    anchor: anchorId,
    n: query.numAfter + 2,
  });
  const foundAnchor = after[0] !== undefined && Number(after[0].id) === anchorId;
  const afterKept = after.slice(0, query.numAfter + (foundAnchor ? 1 : 0));
  const beforeKept = before.slice(0, query.numBefore).reverse();
  const shown = [...beforeKept, ...afterKept];
  const users = await usersByIds(
    db,
    realm.id,
    shown.flatMap((row) => [row.sender_id, ...(row.recipient_ids ?? [])]),
  );
  const streams = new Map<number, Stream | undefined>();
  const messages = [];
  for (const row of shown) {
    if (row.stream_id !== null && !streams.has(row.stream_id))
      streams.set(row.stream_id, await streamById(db, realm.id, row.stream_id));
    messages.push({
      ...formatMessage(actor, row, users, row.stream_id === null ? undefined : streams.get(row.stream_id), {
        applyMarkdown: query.applyMarkdown ?? true,
      }),
      flags: row.flags,
    });
  }
  return {
    messages,
    // Zulip answers `newest` (and `first_unread` with nothing unread) with the anchor it used,
    // LARGER_THAN_MAX_MESSAGE_ID; clients such as zulip-terminal test for that value.
    anchor: newest ? LARGER_THAN_MAX_MESSAGE_ID : anchorId,
    found_anchor: foundAnchor,
    found_oldest: before.length <= query.numBefore,
    found_newest: after.length <= afterKept.length,
    history_limited: false,
  };
}
