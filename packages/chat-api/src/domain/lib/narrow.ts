import { JsonableError } from '../errors.ts';
import { alertWords } from './alert-words.ts';
import type { Actor } from '../context.ts';
import { maySeeStream } from './channels.ts';
import { accessibleMessage } from './message-access.ts';
import { canReadHistory, streamById, streamByName, type Stream } from './streams.ts';
import { isGuest, userByEmailVisibleTo, userById, type User } from './users.ts';
import { VISIBILITY } from './user-topics.ts';
import { spanStreamIds } from './user-messages.ts';
import { MENTION_FLAGS, RESOLVED_PREFIX, type EventNarrowTerm } from './event-narrow.ts';
import { rows } from '@muse/core';

/*
 * Zulip's narrow grammar, the one implementation behind GET /messages, POST /messages/flags/narrow,
 * GET /messages/matches_narrow and POST /register's `narrow`. A narrow is a list of terms
 * `{operator, operand, negated?}` (or the legacy pair `[operator, operand]`), all of which a
 * message must match. `parseNarrow` checks the shape and names; `compileNarrow` resolves names
 * (channels, users, messages) as the reader may see them and yields SQL conditions on a message
 * `m` and on the reader's flags; `eventNarrow` resolves a queue's narrow once, at registration,
 * into what `matchesEventNarrow` tests each message event against.
 */

export interface NarrowTerm {
  operator: string;
  operand: unknown;
  negated: boolean;
}

/** Zulip's older names of operators. */
const ALIASES: Record<string, string> = {
  stream: 'channel',
  streams: 'channels',
  subject: 'topic',
  'pm-with': 'dm',
  'group-pm-with': 'dm-including',
};

const OPERATORS = new Set([
  'channel',
  'channels',
  'topic',
  'sender',
  'dm',
  'dm-including',
  'is',
  'has',
  'id',
  'near',
  'with',
  'search',
]);

/** Operators whose operand may be an id (Zulip's list), and those that take a list of ids. */
const ID_OPERATORS = new Set(['channel', 'sender', 'dm-including', 'id', 'near', 'with']);
const IDS_OPERATORS = new Set(['dm']);

export const IS_OPERANDS = [
  'dm',
  'private',
  'starred',
  'mentioned',
  'alerted',
  'unread',
  'resolved',
  'followed',
  'muted',
] as const;
export const HAS_OPERANDS = ['link', 'attachment', 'image', 'reaction'] as const;

const badNarrow = (detail: string) =>
  new JsonableError(`Invalid narrow operator: ${detail}`, { code: 'BAD_NARROW' });

function checkOperand(operator: string, operand: unknown): void {
  const isInt = (v: unknown) => typeof v === 'number' && Number.isInteger(v);
  if (IDS_OPERATORS.has(operator)) {
    if (typeof operand === 'string' || isInt(operand)) return;
    if (Array.isArray(operand) && operand.every(isInt)) return;
    throw new JsonableError('elem["operand"] is not a string or an integer list');
  }
  if (ID_OPERATORS.has(operator)) {
    if (typeof operand === 'string' || isInt(operand)) return;
    throw new JsonableError('elem["operand"] is not a string or an integer');
  }
  if (typeof operand !== 'string') throw new JsonableError('elem["operand"] is not a string');
  if (operator === 'search' && operand.trim() === '')
    throw new JsonableError('elem["operand"] cannot be blank');
}

/** The terms of a narrow in either form, operators under their current names, operands checked. */
export function parseNarrow(narrow: unknown[]): NarrowTerm[] {
  return narrow.map((term) => {
    let operator: unknown;
    let operand: unknown;
    let negated: unknown = false;
    if (Array.isArray(term) && term.length === 2) [operator, operand] = term as [unknown, unknown];
    else if (term && typeof term === 'object' && !Array.isArray(term))
      ({ operator, operand, negated = false } = term as Record<string, unknown>);
    else throw new JsonableError('Invalid narrow: each term is [operator, operand] or {operator, operand}');
    if (typeof operator !== 'string') throw new JsonableError('elem["operator"] is not a string');
    if (typeof negated !== 'boolean') throw new JsonableError('elem["negated"] is not a boolean');
    if (operand === undefined) throw new JsonableError('elem["operand"] is missing');
    // Zulip looks operators up with `-` read as `_`, so `pm_with` works as `pm-with` (zulip-terminal
    // 0.7.0 sends `pm_with`).
    const dashed = operator.replaceAll('_', '-');
    const name = ALIASES[dashed] ?? dashed;
    if (!OPERATORS.has(name)) throw badNarrow('unknown operator');
    checkOperand(name, operand);
    return { operator: name, operand, negated };
  });
}

/** A narrow as SQL on a message `m`, for the reader `:userId`. */
export interface CompiledNarrow {
  /** Conditions on `m`, ANDed. */
  where: string[];
  /** Conditions on the reader's flags, given the SQL expression of their flags (text[]). */
  flags: ((flags: string) => string)[];
  params: Record<string, unknown>;
  /**
   * The channels whose whole history the reader reads, when a term confines the narrow to
   * channels whose history they may read (`channel`, `channels:public`); otherwise only the
   * messages they received are read.
   */
  history: number[] | undefined;
  /** The `tsquery` expression of the positive `search` terms (for highlighting), if any. */
  search: string | undefined;
  /**
   * SQL of the ids of the messages the positive `search` terms match, found through the GIN
   * index; not among `where`: a reader of received messages reads the spans' channels in one walk
   * with it (lib/user-messages.ts), the others add `narrowConditions`.
   */
  matching: string | undefined;
  /**
   * What the flag terms let a reader of received messages skip (lib/user-messages.ts): `is:unread`
   * reads above the spans' read watermarks, `is:starred` only the flags rows (the default flags
   * are never starred), instead of testing every message received. With a search, `streams`:
   * the channels of the reader's spans, which the search's read walks, and `phrase` when a
   * search term quotes a phrase (the read starts from its matches).
   */
  received: { unread?: boolean; explicitOnly?: boolean; streams?: number[]; phrase?: boolean };
}

const TSQUERY = (param: string) => `websearch_to_tsquery(chat.search_config(), :${param})`;

/** SQL: the ids of the messages whose words match every `tsquery` expression. */
const matchingIds = (tsqueries: string[]) =>
  `SELECT s.message_id FROM chat.message_search s WHERE ${tsqueries.map((q) => `s.tsv @@ ${q}`).join(' AND ')}`;

/**
 * The channel a narrow names, as the reader may see it: a private channel they may not see
 * answers exactly as a channel that does not exist, so a narrow does not reveal it.
 */
async function narrowStream(actor: Actor, operand: unknown): Promise<Stream> {
  const asId =
    typeof operand === 'number' ? operand : /^\d+$/.test(String(operand)) ? Number(operand) : undefined;
  const stream =
    (typeof operand === 'string' ? await streamByName(actor.db, actor.realm.id, operand) : undefined) ??
    (asId === undefined ? undefined : await streamById(actor.db, actor.realm.id, asId));
  if (!stream || !(await maySeeStream(actor, stream))) throw badNarrow('unknown channel');
  return stream;
}

/** A user named by id, email (as the reader may see it) or `me`. */
async function narrowUser(actor: Actor, operand: unknown): Promise<User | undefined> {
  const { db, realm, user, config } = actor;
  if (operand === 'me') return user;
  if (typeof operand === 'number' || /^\d+$/.test(String(operand)))
    return userById(db, realm.id, Number(operand));
  return userByEmailVisibleTo(db, realm, config, user, String(operand).trim());
}

/** A direct-message conversation's members besides the reader, by ids or comma-separated emails. */
async function narrowUsers(actor: Actor, operand: unknown): Promise<number[]> {
  const names = Array.isArray(operand)
    ? operand
    : typeof operand === 'number'
      ? [operand]
      : String(operand)
          .split(',')
          .filter((s) => s.trim() !== '');
  const ids: number[] = [];
  for (const name of names) {
    const found = await narrowUser(actor, name);
    if (!found)
      throw badNarrow(`unknown user in ${Array.isArray(operand) ? operand.join(',') : String(operand)}`);
    ids.push(found.id);
  }
  return ids;
}

/** The ids of the public channels the reader may read the history of (none for a guest). */
async function publicStreamIds(actor: Actor, webPublicOnly: boolean): Promise<number[]> {
  if (isGuest(actor.user) && !webPublicOnly) return [];
  const found = await rows<{ id: number }>(
    actor.db,
    `SELECT id FROM chat.streams WHERE realm_id = :realmId AND NOT invite_only
       ${webPublicOnly ? 'AND is_web_public' : ''}`,
    { realmId: actor.realm.id },
  );
  return found.map((s) => s.id);
}

/**
 * `with`: the conversation that now holds the message, in place of the narrow's own channel,
 * topic and direct-message terms (Zulip's rule, so a link survives the message's move); a
 * message the reader may not access leaves the rest of the narrow as it is.
 */
async function resolveWith(actor: Actor, terms: NarrowTerm[]): Promise<NarrowTerm[]> {
  const withTerm = terms.find((t) => t.operator === 'with');
  if (!withTerm) return terms;
  const rest = terms.filter((t) => t.operator !== 'with');
  const messageId = Number(withTerm.operand);
  if (!Number.isSafeInteger(messageId)) throw badNarrow('Invalid message ID');
  let found;
  try {
    found = await accessibleMessage(actor, messageId);
  } catch {
    return rest;
  }
  const conversation = new Set(['channel', 'topic', 'dm', 'dm-including']);
  const kept = rest.filter(
    (t) => !conversation.has(t.operator) && !(t.operator === 'is' && t.operand === 'dm'),
  );
  if (found.stream)
    return [
      ...kept,
      { operator: 'channel', operand: found.stream.id, negated: false },
      { operator: 'topic', operand: found.row.topic, negated: false },
    ];
  const others = (found.row.recipient_ids ?? []).filter((id) => id !== actor.user.id);
  return [...kept, { operator: 'dm', operand: others, negated: false }];
}

/**
 * A condition on `m.stream_id`: as is (an equality the planner uses to pick the channel's
 * messages), or, to be negated, with a direct message (no channel) counted as outside it.
 */
const inChannels = (condition: string, negated: boolean) =>
  negated ? `COALESCE(${condition}, false)` : condition;

/** The narrow as SQL conditions, every name resolved as the reader may see it. */
export async function compileNarrow(actor: Actor, narrow: NarrowTerm[]): Promise<CompiledNarrow> {
  const compiled: CompiledNarrow = {
    where: [],
    flags: [],
    params: {},
    history: undefined,
    search: undefined,
    matching: undefined,
    received: {},
  };
  const searches: string[] = [];
  const confine = (ids: number[]) => {
    compiled.history = compiled.history ? compiled.history.filter((id) => ids.includes(id)) : ids;
  };
  for (const [i, term] of (await resolveWith(actor, narrow)).entries()) {
    const key = `narrow${i}`;
    const not = (sql: string) => (term.negated ? `NOT (${sql})` : `(${sql})`);
    const where = (sql: string, value?: unknown) => {
      compiled.where.push(not(sql));
      if (value !== undefined) compiled.params[key] = value;
    };
    switch (term.operator) {
      case 'channel': {
        const stream = await narrowStream(actor, term.operand);
        where(inChannels(`m.stream_id = :${key}`, term.negated), stream.id);
        if (!term.negated) {
          if (await canReadHistory(actor.db, actor.user, stream)) confine([stream.id]);
          else compiled.history = undefined;
        }
        break;
      }
      case 'channels': {
        if (term.operand !== 'public' && term.operand !== 'web-public')
          throw badNarrow('unknown channels operand');
        const ids = await publicStreamIds(actor, term.operand === 'web-public');
        where(inChannels(`m.stream_id = ANY (CAST(:${key} AS int[]))`, term.negated), `{${ids.join(',')}}`);
        if (!term.negated) confine(ids);
        break;
      }
      case 'topic':
        where(`m.stream_id IS NOT NULL AND lower(m.topic) = lower(:${key})`, term.operand);
        break;
      case 'sender': {
        const sender = await narrowUser(actor, term.operand);
        if (!sender) throw badNarrow('unknown user');
        where(`m.sender_id = :${key}`, sender.id);
        break;
      }
      case 'dm': {
        const members = `{${[...new Set([actor.user.id, ...(await narrowUsers(actor, term.operand))])].join(',')}}`;
        where(
          `m.stream_id IS NULL AND m.recipient_ids @> CAST(:${key} AS int[]) AND m.recipient_ids <@ CAST(:${key} AS int[])`,
          members,
        );
        break;
      }
      case 'dm-including': {
        const member = await narrowUser(actor, term.operand);
        if (!member) throw badNarrow('unknown user');
        where(`m.stream_id IS NULL AND :${key} = ANY (m.recipient_ids)`, member.id);
        break;
      }
      case 'is':
        isTerm(compiled, term, key, not);
        break;
      case 'has':
        where(hasCondition(term.operand));
        break;
      case 'id': {
        const id = Number(term.operand);
        if (!Number.isSafeInteger(id) || id < 0) throw badNarrow('Invalid message ID');
        where(`m.id = :${key}`, id);
        break;
      }
      case 'search':
        if (term.negated) where(`m.id IN (${matchingIds([TSQUERY(key)])})`, term.operand);
        else {
          compiled.params[key] = term.operand;
          searches.push(TSQUERY(key));
          // websearch_to_tsquery's phrase syntax.
          if (String(term.operand).includes('"')) compiled.received.phrase = true;
        }
        break;
      // `near` places the anchor (a client's concern); `with` was resolved above.
      default:
        break;
    }
  }
  if (searches.length > 0) {
    compiled.search = `(${searches.join(' && ')})`;
    compiled.matching = matchingIds(searches);
    compiled.received.streams = await spanStreamIds(actor.db, actor.user.id);
  }
  return compiled;
}

/** The narrow's conditions on `m` for a reader that does not start from its search's matches. */
export function narrowConditions(narrow: CompiledNarrow): string[] {
  return narrow.matching ? [...narrow.where, `m.id IN (${narrow.matching})`] : narrow.where;
}

function isTerm(compiled: CompiledNarrow, term: NarrowTerm, key: string, not: (sql: string) => string): void {
  const flag = (sql: (flags: string) => string) => void compiled.flags.push((flags) => not(sql(flags)));
  const where = (sql: string) => void compiled.where.push(not(sql));
  switch (term.operand) {
    case 'dm':
    case 'private':
      return where('m.stream_id IS NULL');
    case 'starred':
      if (!term.negated) compiled.received.explicitOnly = true;
      return flag((f) => `'starred' = ANY (${f})`);
    case 'mentioned':
      return flag((f) => `${f} && ARRAY['${MENTION_FLAGS.join("', '")}']`);
    case 'unread':
      if (!term.negated) compiled.received.unread = true;
      return flag((f) => `NOT ('read' = ANY (${f}))`);
    case 'alerted':
      // Zulip flags a message with the reader's alert words when it is sent; here they are looked up.
      return where(`m.sender_id <> :userId AND EXISTS (SELECT 1 FROM chat.alert_words aw
        WHERE aw.user_id = :userId AND strpos(lower(m.content), lower(aw.word)) > 0)`);
    case 'resolved':
      compiled.params[key] = `${RESOLVED_PREFIX}%`;
      return where(`m.stream_id IS NOT NULL AND m.topic LIKE :${key}`);
    case 'followed':
      return where(`EXISTS (SELECT 1 FROM chat.user_topics ut WHERE ut.user_id = :userId
        AND ut.stream_id = m.stream_id AND lower(ut.topic) = lower(m.topic) AND ut.visibility_policy = ${VISIBILITY.FOLLOWED})`);
    case 'muted':
      // A muted topic, or a muted channel's topic the reader did not unmute or follow.
      return where(`m.stream_id IS NOT NULL AND COALESCE(
        (SELECT ut.visibility_policy = ${VISIBILITY.MUTED} FROM chat.user_topics ut WHERE ut.user_id = :userId
           AND ut.stream_id = m.stream_id AND lower(ut.topic) = lower(m.topic) AND ut.visibility_policy <> ${VISIBILITY.INHERIT}),
        EXISTS (SELECT 1 FROM chat.subscriptions s WHERE s.user_id = :userId AND s.stream_id = m.stream_id AND s.is_muted))`);
    default:
      throw badNarrow("unknown 'is' operand");
  }
}

function hasCondition(operand: unknown): string {
  switch (operand) {
    case 'link':
      // Any link the rendered message holds, as Zulip counts them: an uploaded file's relative
      // `/user_uploads/…` link is one.
      return `m.rendered_content ~ '<a [^>]*href="'`;
    case 'attachment':
      return 'EXISTS (SELECT 1 FROM chat.attachment_messages am WHERE am.message_id = m.id)';
    case 'image':
      return `(m.rendered_content LIKE '%<img %' OR EXISTS (SELECT 1 FROM chat.attachment_messages am
        JOIN chat.attachments a ON a.id = am.attachment_id WHERE am.message_id = m.id AND a.content_type LIKE 'image/%'))`;
    case 'reaction':
      return 'EXISTS (SELECT 1 FROM chat.reactions r WHERE r.message_id = m.id)';
    default:
      throw badNarrow("unknown 'has' operand");
  }
}

/* ----- Narrowed event queues ----- */

/** Operators a queue's narrow may use: those decided by the message event alone (as in Zulip). */
const EVENT_OPERATORS = new Set(['channel', 'topic', 'sender', 'dm', 'dm-including', 'is']);
const EVENT_IS = new Set(['dm', 'private', 'starred', 'mentioned', 'alerted', 'unread', 'resolved']);

/** Resolves a queue's narrow; an operator a queue cannot filter on is refused, as Zulip does. */
export async function eventNarrow(actor: Actor, narrow: NarrowTerm[]): Promise<EventNarrowTerm[]> {
  const resolved: EventNarrowTerm[] = [];
  for (const term of narrow) {
    const negated = term.negated;
    if (
      !EVENT_OPERATORS.has(term.operator) ||
      (term.operator === 'is' && !EVENT_IS.has(String(term.operand)))
    )
      throw new JsonableError(`Operator ${term.operator} not supported.`);
    if (term.operator === 'channel')
      resolved.push({ op: 'channel', id: (await narrowStream(actor, term.operand)).id, negated });
    else if (term.operator === 'topic') resolved.push({ op: 'topic', name: String(term.operand), negated });
    else if (term.operator === 'sender' || term.operator === 'dm-including') {
      const found = await narrowUser(actor, term.operand);
      if (!found) throw badNarrow('unknown user');
      resolved.push({ op: term.operator, id: found.id, negated });
    } else if (term.operator === 'dm') {
      const ids = [...new Set([actor.user.id, ...(await narrowUsers(actor, term.operand))])];
      resolved.push({ op: 'dm', ids, negated });
    } else if (term.operand === 'alerted') {
      const words = await alertWords(actor.db, actor.user.id);
      resolved.push({ op: 'is', what: 'alerted', negated, words: words.map((w) => w.toLowerCase()) });
    } else resolved.push({ op: 'is', what: String(term.operand), negated });
  }
  return resolved;
}
