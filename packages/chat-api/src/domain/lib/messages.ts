import type { Sequelize } from '@muse/core';
import { JsonableError } from '../errors.ts';
import type { Actor } from '../context.ts';
import { streamById, streamByName, type Stream } from './streams.ts';
import { compileNarrow, narrowConditions, type CompiledNarrow, type NarrowTerm } from './narrow.ts';
import { receivedMessages, USER_FLAGS, USER_FLAGS_JOINS } from './user-messages.ts';
import { accessibleMessage, readableMessages } from './message-access.ts';
import { one, rows } from '@muse/core';
import { PRESENTATION_COLUMNS, PRESENTATION_JOINS, REACTIONS_SQL, type PresentedRow } from './message-row.ts';

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

/** The `anchor` Zulip reports for `newest`: larger than any message id. */
export const LARGER_THAN_MAX_MESSAGE_ID = 10_000_000_000_000_000;

/** What GET /messages and POST /messages/flags/narrow ask for: a page around an anchor, or given ids. */
export interface MessagesQuery {
  narrow: NarrowTerm[];
  /** A message id, `newest`, `oldest`, `first_unread` or `date` (then `anchorDate`). */
  anchor: string;
  anchorDate?: string;
  numBefore: number;
  numAfter: number;
  includeAnchor?: boolean;
  /** Instead of a page: these messages, those the caller may read that match the narrow. */
  messageIds?: number[];
  applyMarkdown?: boolean;
}

/** Zulip's highlighted matches of a message (`match_content`, `match_subject`). */
export interface SearchMatch {
  match_content: string;
  match_subject: string;
}

/**
 * A message as a page reads it: with what presenting it needs, the caller's flags and, for a
 * search, its highlighted matches.
 */
export type FoundRow = PresentedRow & { flags: string[] } & Partial<SearchMatch>;

/** The reader's flags on a message `m` read through a channel's history: theirs, else read and historical. */
const HISTORY_FLAGS = `COALESCE(${USER_FLAGS}, ARRAY['read', 'historical'])`;

/**
 * SQL of the narrow's messages meeting `condition` (on `m`, or on the message id alone as a
 * function of it), first `:n` in `order`: from the history of the channels the narrow confines
 * it to when the caller may read it, else from what the caller received.
 */
export function pageSql(
  narrow: CompiledNarrow,
  condition: string | ((id: string) => string),
  order: 'ASC' | 'DESC',
): string {
  const onMessage = typeof condition === 'string' ? condition : condition('m.id');
  // The highlights are computed with the page, on its rows alone (Postgres evaluates an expensive
  // select-list item above the sort and limit), not in a statement of their own.
  const matches = narrow.search ? `, ${matchColumns(narrow)}` : '';
  const page = narrow.history
    ? `SELECT m.*, ${REACTIONS_SQL}, ${HISTORY_FLAGS} AS flags${matches}
      FROM chat.messages m ${USER_FLAGS_JOINS}
      WHERE m.stream_id = ANY (CAST(:historyStreams AS int[])) AND ${[onMessage, ...narrowConditions(narrow)].join(' AND ')}
        ${narrow.flags.map((f) => `AND ${f(HISTORY_FLAGS)}`).join(' ')}
      ORDER BY m.id ${order} LIMIT :n`
    : `SELECT m.*, ${REACTIONS_SQL}${matches} FROM (${receivedMessages({
        ...narrow.received,
        where: [onMessage, ...narrow.where],
        flags: narrow.flags,
        matching: narrow.matching,
        order,
        limit: 'n',
      })}) m`;
  // What presenting the rows reads, joined to the limited page (the page's plan stays its own).
  return `SELECT m.*, ${PRESENTATION_COLUMNS} FROM (${page}) m ${PRESENTATION_JOINS} ORDER BY m.id ${order}`;
}

/** The anchor as a message id: `first_unread` and `date` are looked up in the narrow. */
export async function anchorId(
  actor: Actor,
  narrow: CompiledNarrow,
  params: Record<string, unknown>,
  query: MessagesQuery,
): Promise<number | 'newest'> {
  let anchor = query.anchor;
  // `first_unread`: the oldest unread message of the narrow, else as `newest` (Zulip's rule).
  if (anchor === 'first_unread') {
    const unread = await one<{ id: string }>(
      actor.db,
      `SELECT id FROM (${receivedMessages({ ...narrow.received, where: narrow.where, flags: narrow.flags, matching: narrow.matching, unread: true, order: 'ASC', limit: 'one' })}) m`,
      { ...params, one: 1 },
    );
    return unread ? Number(unread.id) : 'newest';
  }
  // `date`: the narrow's first message sent at or after `anchor_date`, else as `newest`.
  if (anchor === 'date') {
    const date = new Date(query.anchorDate ?? '');
    if (!query.anchorDate || Number.isNaN(date.getTime())) throw new JsonableError('Invalid anchor_date');
    const first = await one<{ id: string }>(
      actor.db,
      `SELECT m.id FROM (${pageSql(narrow, 'm.date_sent >= :anchorDate', 'ASC')}) m`,
      { ...params, anchorDate: date, n: 1 },
    );
    return first ? Number(first.id) : 'newest';
  }
  if (anchor === 'newest') return 'newest';
  if (anchor === 'oldest') anchor = '0';
  if (!/^\d{1,19}$/.test(anchor)) throw new JsonableError('Invalid anchor');
  return Number(anchor);
}

/** The given messages the caller may read (received, or in a channel whose history they may read) that match. */
export async function messagesByIds(
  actor: Actor,
  narrow: CompiledNarrow,
  params: Record<string, unknown>,
  ids: number[],
): Promise<FoundRow[]> {
  const flags = `COALESCE(chat.message_flags(:userId, m.id), ARRAY['read', 'historical'])`;
  const found = await rows<PresentedRow & Partial<SearchMatch> & { user_flags: string[] | null }>(
    actor.db,
    `SELECT m.*, ${REACTIONS_SQL}, ${PRESENTATION_COLUMNS}, chat.message_flags(:userId, m.id) AS user_flags
       ${narrow.search ? `, ${matchColumns(narrow)}` : ''}
     FROM chat.messages m ${PRESENTATION_JOINS} WHERE m.realm_id = :realmId AND m.id = ANY (CAST(:ids AS bigint[]))
       ${narrow.history ? 'AND m.stream_id = ANY (CAST(:historyStreams AS int[]))' : ''}
       ${narrowConditions(narrow)
         .map((w) => `AND ${w}`)
         .join(' ')} ${narrow.flags.map((f) => `AND ${f(flags)}`).join(' ')}
     ORDER BY m.id`,
    { ...params, ids: `{${ids.join(',')}}` },
  );
  const readable = await readableMessages(
    actor,
    found.map(({ user_flags, ...row }) => ({ row, flags: user_flags })),
  );
  return readable.map(({ row, flags }) => ({ ...row, flags: flags ?? ['read', 'historical'] }));
}

/** Start and end of a search hit in `ts_headline`'s output, replaced by Zulip's highlight span. */
const HIT_START = '\u0001';
const HIT_END = '\u0002';
const HEADLINE_OPTIONS = `'HighlightAll=TRUE, StartSel=' || chr(1) || ', StopSel=' || chr(2)`;
const ESCAPED_TOPIC = `replace(replace(replace(m.topic, '&', '&amp;'), '<', '&lt;'), '>', '&gt;')`;

/**
 * Select-list items of a message `m`'s `match_content` and `match_subject`: the rendered content
 * and the (HTML-escaped) topic, the words the narrow's search found between hit marks
 * (`highlighted` turns them into Zulip's spans).
 */
function matchColumns(narrow: CompiledNarrow): string {
  const headline = (text: string) =>
    narrow.search
      ? `ts_headline(chat.search_config(), ${text}, ${narrow.search}, ${HEADLINE_OPTIONS})`
      : text;
  return `${headline('m.rendered_content')} AS match_content, ${headline(ESCAPED_TOPIC)} AS match_subject`;
}

/** Zulip's `match_content` and `match_subject` of a row read with `matchColumns`: the hits in `<span class="highlight">`. */
export function highlighted(row: SearchMatch): SearchMatch {
  const highlight = (html: string) =>
    html.replaceAll(HIT_START, '<span class="highlight">').replaceAll(HIT_END, '</span>');
  return { match_content: highlight(row.match_content), match_subject: highlight(row.match_subject) };
}

/** GET /messages/matches_narrow: of `ids`, those the caller received that match, with their matches. */
export async function matchesNarrow(
  actor: Actor,
  terms: NarrowTerm[],
  ids: number[],
): Promise<Map<number, SearchMatch>> {
  const narrow = await compileNarrow(actor, terms);
  const params = { ...narrow.params, userId: actor.user.id, ids: `{${ids.join(',')}}` };
  const found = await rows<{ id: string } & SearchMatch>(
    actor.db,
    `SELECT m.id, ${matchColumns(narrow)} FROM (${receivedMessages({
      ...narrow.received,
      where: ['m.id = ANY (CAST(:ids AS bigint[]))', ...narrow.where],
      flags: narrow.flags,
      matching: narrow.matching,
    })}) m`,
    params,
  );
  return new Map(found.map((row) => [Number(row.id), highlighted(row)]));
}

/**
 * GET /messages/{id}/read_receipts: who read a message the caller may read — active users other
 * than its sender who allow read receipts (`send_read_receipts`), leaving out users who muted the
 * caller and users the caller muted, as Zulip does.
 */
export async function readReceipts(actor: Actor, messageId: number): Promise<number[]> {
  const { row } = await accessibleMessage(actor, messageId);
  const found = await rows<{ user_id: number }>(
    actor.db,
    `SELECT h.user_id FROM chat.message_holders(:messageId) h JOIN chat.users u ON u.id = h.user_id
     WHERE 'read' = ANY (h.flags) AND u.is_active AND h.user_id <> :senderId
       AND (u.settings->>'send_read_receipts') IS DISTINCT FROM 'false'
       AND NOT EXISTS (SELECT 1 FROM chat.muted_users mu
         WHERE (mu.user_id = h.user_id AND mu.muted_user_id = :me) OR (mu.user_id = :me AND mu.muted_user_id = h.user_id))
     ORDER BY h.user_id`,
    { messageId, senderId: row.sender_id, me: actor.user.id },
  );
  return found.map((r) => r.user_id);
}
