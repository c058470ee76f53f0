/*
 * A message's row as the queries select it, and the select-list item that adds its reactions.
 * Kept apart from lib/messages.ts so the access rule, the presenters and the actions can name
 * the row without importing the message queries (no import circle).
 */
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
