import { rows, type Sequelize } from '@muse/core';

/*
 * The one place that knows how "a user's messages with their flags" are stored (migration 1070):
 * a row in `chat.user_messages` where the flags differ from the default (every direct message,
 * a channel message's exceptions), and the channel messages inside the user's subscription
 * spans, whose flags are the default (`chat.default_flags`: read for the sender and at or below
 * the span's watermark, `wildcard_mentioned` when the message mentions everyone). Readers select
 * from `receivedMessages(...)` as they selected from `user_messages` joined to `messages`.
 */

export interface ReceivedQuery {
  /** Conditions on the message `m` (narrow terms, an anchor), ANDed; the user is `:userId`. */
  where?: string[];
  /** Conditions on the user's flags, given the SQL expression of their flags (narrow terms such as is:starred). */
  flags?: ((flags: string) => string)[];
  /** Only messages the user has not read. */
  unread?: boolean;
  /** Only messages whose flags a row holds (a flag the default never has, such as starred). */
  explicitOnly?: boolean;
  /**
   * SQL of the ids of a search's matches (from its GIN index), which every message read is among;
   * with it, `streams`: the channels of the user's spans (`spanStreamIds`), and `phrase` when the
   * search holds a quoted phrase.
   */
  matching?: string;
  streams?: number[];
  phrase?: boolean;
  /** The first or last `:limit`-named parameter's number of messages, by id; all when absent. */
  order?: 'ASC' | 'DESC';
  limit?: string;
}

/** The flags of a channel message `m` inside the user's subscription span `sp`: the default. */
const SPAN_FLAGS = 'chat.default_flags(sp.user_id, sp.read_through, m.id, m.sender_id, m.wildcard_mentioned)';

/**
 * A subquery (use it as `FROM (…) m`) of the user's messages: every column of `chat.messages`,
 * `flags` (text[]), and `explicit` (whether a flags row holds them). Each branch is index-driven:
 * the user's rows by primary key (or the unread index), and per span the channel's messages by
 * `(stream_id, id)` from the span's start or watermark, each limited before the union.
 */
export function receivedMessages(query: ReceivedQuery = {}): string {
  const where = query.where?.length ? query.where.join(' AND ') : 'true';
  const onFlags = (flags: string) =>
    (query.flags ?? []).map((condition) => `AND ${condition(flags)}`).join(' ');
  const order = query.order ?? 'DESC';
  const tail = query.limit ? `ORDER BY m.id ${order} LIMIT :${query.limit}` : '';
  const explicit = `SELECT m.*, um.flags, true AS explicit
    FROM chat.user_messages um JOIN chat.messages m ON m.id = um.message_id
    WHERE um.user_id = :userId AND (${where}) ${query.matching ? `AND m.id IN (${query.matching})` : ''} ${onFlags('um.flags')} ${query.unread ? `AND NOT ('read' = ANY (um.flags))` : ''}
    ${query.limit ? `ORDER BY um.message_id ${order} LIMIT :${query.limit}` : ''}`;
  const spans = query.matching
    ? matchedInSpans(where, onFlags(SPAN_FLAGS), query)
    : `SELECT m.*, ${SPAN_FLAGS} AS flags,
      false AS explicit
    FROM chat.subscription_spans sp CROSS JOIN LATERAL (
      SELECT m.* FROM chat.messages m
      WHERE m.stream_id = sp.stream_id AND m.id >= sp.from_id AND (sp.to_id IS NULL OR m.id <= sp.to_id)
        AND (${where}) ${onFlags(SPAN_FLAGS)}
        ${query.unread ? 'AND m.id > sp.read_through AND m.sender_id <> :userId' : ''}
        AND NOT EXISTS (SELECT 1 FROM chat.user_messages um WHERE um.user_id = :userId AND um.message_id = m.id)
      ${tail}) m
    WHERE sp.user_id = :userId`;
  if (query.explicitOnly)
    return `SELECT * FROM (${explicit}) received ${query.limit ? `ORDER BY id ${order} LIMIT :${query.limit}` : ''}`;
  return `SELECT * FROM ((${explicit}) UNION ALL (${spans})) received ${query.limit ? `ORDER BY id ${order} LIMIT :${query.limit}` : ''}`;
}

/**
 * The spans' branch when the messages are among a search's `matching`: one read in id order of
 * the messages of the spans' channels, each tested against the search and its span, the page's
 * rows fetched after. For words, the read walks the channels as Postgres runs a bare search over
 * them: the channel ids are constants and the read selects ids alone, so that the planner weighs,
 * as for the bare search, walking newest first (a common word fills the page early) against
 * joining the index's matches to the channels' ids (a rare word). A phrase's read goes through its
 * matches from the index instead, newest (or oldest) first, each looked up by id: Postgres
 * estimates a phrase as often as its words together, far more often than they stand side by
 * side, so it would walk the channels for a phrase too rare for that (at a million messages, half
 * a second of CPU for a page of a phrase, the bare query as well).
 */
function matchedInSpans(where: string, onFlags: string, query: ReceivedQuery): string {
  const streams = (query.streams ?? []).map((id) => Number(id)).join(',');
  const order = query.order ?? 'DESC';
  // `LIMIT 1` keeps each lookup a lookup of that one id, in the matches' order.
  const read = query.phrase
    ? {
        from: `(SELECT matched.id FROM (${query.matching}) matched (id) ORDER BY matched.id ${order}) matched
          CROSS JOIN LATERAL (SELECT * FROM chat.messages m WHERE m.id = matched.id LIMIT 1) m`,
        search: '',
        key: 'matched.id',
      }
    : { from: 'chat.messages m', search: `AND m.id IN (${query.matching})`, key: 'm.id' };
  return `SELECT m.*, ${SPAN_FLAGS} AS flags, false AS explicit
    FROM (SELECT m.id, sp.user_id, sp.read_through
      FROM ${read.from} CROSS JOIN LATERAL (SELECT * FROM chat.subscription_spans sp
        WHERE sp.user_id = :userId AND sp.stream_id = m.stream_id AND ${spanCovers('m.id')} LIMIT 1) sp
      WHERE m.stream_id = ANY ('{${streams}}'::int[]) ${read.search} AND (${where}) ${onFlags}
        ${query.unread ? 'AND m.id > sp.read_through AND m.sender_id <> :userId' : ''}
        AND NOT EXISTS (SELECT 1 FROM chat.user_messages um WHERE um.user_id = :userId AND um.message_id = m.id)
      ${query.limit ? `ORDER BY ${read.key} ${order} LIMIT :${query.limit}` : ''}) sp
    JOIN chat.messages m ON m.id = sp.id`;
}

/** The channels of the user's subscription spans, for a search's read (`ReceivedQuery.streams`). */
export async function spanStreamIds(db: Sequelize, userId: number): Promise<number[]> {
  const found = await rows<{ stream_id: number }>(
    db,
    'SELECT DISTINCT stream_id FROM chat.subscription_spans WHERE user_id = :userId',
    { userId },
  );
  return found.map((row) => row.stream_id);
}

/** SQL: whether subscription span `sp` covers message id `message` (a column or parameter). */
export function spanCovers(message: string): string {
  return `sp.from_id <= ${message} AND (sp.to_id IS NULL OR sp.to_id >= ${message})`;
}

/**
 * For reading a channel's history: joins that find the user's flags on each message `m` (their
 * row, else the default inside a span), and the expression, NULL where they never received it.
 * A join per row rather than `chat.message_flags`, so a page of a channel is one nested loop.
 */
export const USER_FLAGS_JOINS = `LEFT JOIN chat.user_messages um ON um.message_id = m.id AND um.user_id = :userId
  LEFT JOIN chat.subscription_spans sp ON sp.user_id = :userId AND sp.stream_id = m.stream_id
    AND ${spanCovers('m.id')}`;
export const USER_FLAGS = `COALESCE(um.flags, CASE WHEN sp.user_id IS NOT NULL
  THEN chat.default_flags(sp.user_id, sp.read_through, m.id, m.sender_id, m.wildcard_mentioned) END)`;

/**
 * SQL: whether `user` received channel message `message` of channel `stream` (one of their
 * subscription spans of the channel covers it). Each argument is a column or parameter.
 */
export const receivedThroughSpan = (user: string, stream: string, message: string) =>
  `EXISTS (SELECT 1 FROM chat.subscription_spans sp WHERE sp.user_id = ${user} AND sp.stream_id = ${stream}
    AND ${spanCovers(message)})`;
