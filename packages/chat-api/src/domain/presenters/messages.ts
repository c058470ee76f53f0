import type { Actor } from '../context.ts';
import type { MessageRow } from '../lib/messages.ts';
import type { Stream } from '../lib/streams.ts';
import { apiEmail, avatarUrl, canSeeRealEmail, type User } from '../lib/users.ts';

/**
 * A message as Zulip presents it. With `applyMarkdown: false` the content is the sender's
 * Markdown (`content_type: text/x-markdown`), as Zulip gives clients that ask for raw content.
 */
export function formatMessage(
  actor: Actor,
  row: MessageRow,
  users: User[],
  stream: Stream | undefined,
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
