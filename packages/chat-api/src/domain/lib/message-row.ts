/*
 * A message's row as the queries select it, the select-list item that adds its reactions, and
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

/** A row read with PRESENTATION_JOINS and PRESENTATION_COLUMNS: what presenting it needs beside the message. */
export interface PresentedRow extends MessageRow {
  /** The sender's fields, null when the sender is not in the message's organization. */
  sender_full_name: string | null;
  sender_delivery_email: string | null;
  sender_email_address_visibility: number | null;
  sender_is_bot: boolean | null;
  sender_avatar_source: MessagePerson['avatar_source'] | null;
  sender_avatar_version: number | null;
  /** A direct message's recipients (null for a channel message). */
  recipients: MessagePerson[] | null;
  stream_name: string | null;
}

/**
 * What presenting a message `m` reads beside it, in the page's own statement rather than in two
 * statements after it (each statement is a round trip and a socket write; bench/README.md, issue
 * 40): joins (on a page already limited, so they cannot change how the page is found) and
 * select-list items of its sender's fields and channel's name as plain columns, and of a direct
 * message's recipients. Measured on a page of 50 (bench/README.md): the joins add ~0.15 ms of
 * Postgres; a JSON object a row built in a subquery added ~0.9 ms, more than the two statements.
 */
export const PRESENTATION_JOINS = `LEFT JOIN chat.users pu ON pu.id = m.sender_id AND pu.realm_id = m.realm_id
  LEFT JOIN chat.streams ps ON ps.id = m.stream_id AND ps.realm_id = m.realm_id`;
export const PRESENTATION_COLUMNS = `pu.full_name AS sender_full_name, pu.delivery_email AS sender_delivery_email,
  pu.email_address_visibility AS sender_email_address_visibility, pu.is_bot AS sender_is_bot,
  pu.avatar_source AS sender_avatar_source, pu.avatar_version AS sender_avatar_version, ps.name AS stream_name,
  CASE WHEN m.recipient_ids IS NOT NULL THEN (SELECT json_agg(json_build_object('id', u.id, 'full_name', u.full_name,
    'delivery_email', u.delivery_email, 'email_address_visibility', u.email_address_visibility,
    'is_bot', u.is_bot, 'avatar_source', u.avatar_source, 'avatar_version', u.avatar_version))
  FROM chat.users u WHERE u.realm_id = m.realm_id AND u.id = ANY (m.recipient_ids)) END AS recipients`;

/** The people a presented row names: its sender (when found) and a direct message's recipients. */
export function rowPeople(row: PresentedRow): MessagePerson[] {
  const recipients = row.recipients ?? [];
  if (row.sender_delivery_email === null) return recipients;
  return [
    {
      id: row.sender_id,
      full_name: row.sender_full_name!,
      delivery_email: row.sender_delivery_email,
      email_address_visibility: row.sender_email_address_visibility!,
      is_bot: row.sender_is_bot!,
      avatar_source: row.sender_avatar_source!,
      avatar_version: row.sender_avatar_version!,
    },
    ...recipients,
  ];
}

/** A select-list item aggregating a message `m`'s reactions into Zulip's records. */
export const REACTIONS_SQL = `COALESCE((SELECT jsonb_agg(jsonb_build_object('emoji_name', r.emoji_name,
  'emoji_code', r.emoji_code, 'reaction_type', r.reaction_type, 'user_id', r.user_id) ORDER BY r.created_at)
  FROM chat.reactions r WHERE r.message_id = m.id), '[]'::jsonb) AS reactions`;
