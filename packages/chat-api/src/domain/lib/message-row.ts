/*
 * A message's row as the queries select it, and the select-list items that add its reactions and
 * what presenting it reads (its people and channel name).
 * Kept apart from lib/messages.ts so the access rule, the presenters and the actions can name
 * the row without importing the message queries (no import circle).
 */
import type { MessagePerson } from './users.ts';

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

/** A row read with PRESENTATION_SQL: what presenting it needs beside the message. */
export type PresentedRow = MessageRow & { people: MessagePerson[] | null; stream_name: string | null };

/**
 * Select-list items of what presenting a message `m` reads beside it: its sender and direct
 * recipients (`people`, the fields the message's sender and recipient fields come from) and its
 * channel's name (`stream_name`). In the page's own statement rather than two statements after
 * it: each statement is a round trip and a socket write (bench/README.md, issue 40).
 */
export const PRESENTATION_SQL = `(SELECT jsonb_agg(jsonb_build_object('id', u.id, 'full_name', u.full_name,
    'delivery_email', u.delivery_email, 'email_address_visibility', u.email_address_visibility,
    'is_bot', u.is_bot, 'avatar_source', u.avatar_source, 'avatar_version', u.avatar_version))
  FROM chat.users u WHERE u.realm_id = m.realm_id AND u.id = ANY (array_prepend(m.sender_id, m.recipient_ids))) AS people,
  (SELECT s.name FROM chat.streams s WHERE s.id = m.stream_id AND s.realm_id = m.realm_id) AS stream_name`;

/** A select-list item aggregating a message `m`'s reactions into Zulip's records. */
export const REACTIONS_SQL = `COALESCE((SELECT jsonb_agg(jsonb_build_object('emoji_name', r.emoji_name,
  'emoji_code', r.emoji_code, 'reaction_type', r.reaction_type, 'user_id', r.user_id) ORDER BY r.created_at)
  FROM chat.reactions r WHERE r.message_id = m.id), '[]'::jsonb) AS reactions`;
