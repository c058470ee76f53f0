import type { Actor } from '../context.ts';
import { accessibleMessage } from '../lib/message-access.ts';
import { rowPeople, type MessageRow } from '../lib/message-row.ts';
import {
  anchorId,
  LARGER_THAN_MAX_MESSAGE_ID,
  highlighted,
  messagesByIds,
  pageSql,
  type FoundRow,
  type MessagesQuery,
} from '../lib/messages.ts';
import { compileNarrow } from '../lib/narrow.ts';
import type { Stream } from '../lib/streams.ts';
import { apiEmail, avatarUrl, canSeeRealEmail, usersByIds, type MessagePerson } from '../lib/users.ts';
import { rows } from '@muse/core';

/**
 * A message as Zulip presents it. With `applyMarkdown: false` the content is the sender's
 * Markdown (`content_type: text/x-markdown`), as Zulip gives clients that ask for raw content.
 */
export function formatMessage(
  actor: Actor,
  row: MessageRow,
  users: MessagePerson[],
  stream: Pick<Stream, 'id' | 'name'> | undefined,
  options: { applyMarkdown?: boolean } = {},
): Record<string, unknown> {
  const html = options.applyMarkdown ?? true;
  const byId = new Map(users.map((u) => [u.id, u]));
  const sender = byId.get(row.sender_id);
  const formatted: Record<string, unknown> = {
    id: Number(row.id),
    sender_id: row.sender_id,
    sender_full_name: sender?.full_name ?? '',
    sender_email: sender ? apiEmail(sender, actor.realm, actor.config) : '',
    sender_realm_str: actor.realm.string_id,
    avatar_url: sender
      ? avatarUrl(
          sender,
          canSeeRealEmail(actor.user, sender)
            ? sender.delivery_email
            : apiEmail(sender, actor.realm, actor.config),
        )
      : null,
    client: row.client,
    content: html ? row.rendered_content : row.content,
    content_type: html ? 'text/html' : 'text/x-markdown',
    is_me_message: false,
    reactions: row.reactions ?? [],
    submessages: [],
    subject: row.topic,
    topic_links: [],
    timestamp: Math.floor(new Date(row.date_sent).getTime() / 1000),
    recipient_id: stream ? stream.id : row.sender_id,
  };
  if (row.last_edit_time) formatted.last_edit_timestamp = seconds(row.last_edit_time);
  if (row.last_moved_time) formatted.last_moved_timestamp = seconds(row.last_moved_time);
  if (stream) {
    Object.assign(formatted, { type: 'stream', stream_id: stream.id, display_recipient: stream.name });
  } else {
    Object.assign(formatted, {
      type: 'private',
      display_recipient: (row.recipient_ids ?? []).map((id) => {
        const u = byId.get(id);
        return {
          id,
          email: u ? apiEmail(u, actor.realm, actor.config) : '',
          full_name: u?.full_name ?? '',
          is_mirror_dummy: false,
        };
      }),
    });
  }
  return formatted;
}

const seconds = (d: Date) => Math.floor(new Date(d).getTime() / 1000);

/** GET /messages: the caller's messages of a narrow around an anchor, or of given ids. */
export async function getMessages(actor: Actor, query: MessagesQuery): Promise<Record<string, unknown>> {
  const narrow = await compileNarrow(actor, query.narrow);
  const params: Record<string, unknown> = {
    ...narrow.params,
    userId: actor.user.id,
    realmId: actor.realm.id,
    historyStreams: `{${(narrow.history ?? []).join(',')}}`,
  };
  if (query.messageIds) {
    const found = await messagesByIds(actor, narrow, params, query.messageIds);
    return {
      messages: present(actor, found, query.applyMarkdown),
      history_limited: false,
    };
  }
  const anchor = await anchorId(actor, narrow, params, query);
  const id = anchor === 'newest' ? Number.MAX_SAFE_INTEGER : anchor;
  const before = await rows<FoundRow>(
    actor.db,
    pageSql(narrow, (message) => `${message} < :anchor`, 'DESC'),
    {
      ...params,
      anchor: id,
      n: query.numBefore + 1,
    },
  );
  // Nothing is at or after `newest`: no read for that side.
  const after =
    anchor === 'newest'
      ? []
      : await rows<FoundRow>(
          actor.db,
          pageSql(narrow, (message) => `${message} >= :anchor`, 'ASC'),
          {
            ...params,
            anchor: id,
            n: query.numAfter + 2,
          },
        );
  const foundAnchor = after[0] !== undefined && Number(after[0].id) === id;
  const afterKept = after.slice(0, query.numAfter + (foundAnchor ? 1 : 0));
  const beforeKept = before.slice(0, query.numBefore).reverse();
  const shown = [
    ...beforeKept,
    ...(foundAnchor && query.includeAnchor === false ? afterKept.slice(1) : afterKept),
  ];
  return {
    messages: present(actor, shown, query.applyMarkdown),
    // Zulip answers `newest` (and `first_unread` with nothing unread) with the anchor it used,
    // LARGER_THAN_MAX_MESSAGE_ID; clients such as zulip-terminal test for that value.
    anchor: anchor === 'newest' ? LARGER_THAN_MAX_MESSAGE_ID : id,
    found_anchor: foundAnchor,
    found_oldest: before.length <= query.numBefore,
    found_newest: after.length <= afterKept.length,
    history_limited: false,
  };
}

/**
 * The rows as Zulip's message records, with the caller's flags and, for a search, the highlighted
 * matches; each row brings its people and channel name (`PRESENTATION_COLUMNS`), so nothing is read here.
 */
function present(actor: Actor, shown: FoundRow[], applyMarkdown = true): Record<string, unknown>[] {
  return shown.map((row) => ({
    ...formatMessage(
      actor,
      row,
      rowPeople(row),
      row.stream_id === null || row.stream_name === null
        ? undefined
        : { id: row.stream_id, name: row.stream_name },
      { applyMarkdown },
    ),
    flags: row.flags,
    // A search's page reads its highlights with its rows (lib/messages.ts `pageSql`).
    ...(row.match_content === undefined || row.match_subject === undefined
      ? {}
      : highlighted({ match_content: row.match_content, match_subject: row.match_subject })),
  }));
}

/** `GET /messages/{id}`: the message as `GET /messages` shows it, and its Markdown. */
export async function readMessage(
  actor: Actor,
  messageId: number,
  applyMarkdown: boolean,
): Promise<{ raw_content: string; message: Record<string, unknown> }> {
  const { row, flags, stream } = await accessibleMessage(actor, messageId);
  const users = await usersByIds(actor.db, actor.realm.id, [row.sender_id, ...(row.recipient_ids ?? [])]);
  return {
    raw_content: row.content,
    message: {
      ...formatMessage(actor, row, users, stream, { applyMarkdown }),
      flags: flags ?? ['read', 'historical'],
    },
  };
}
