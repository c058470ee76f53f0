/*
 * A message's edit history (`GET /messages/{id}/history`), rebuilt from the entries each edit
 * stored (actions/message-edit.ts) into Zulip's snapshots.
 */
import type { Actor } from '../context.ts';
import { accessibleMessage } from '../lib/message-access.ts';
import { rows } from '@muse/core';

const seconds = (d: Date) => Math.floor(new Date(d).getTime() / 1000);

/**
 * `GET /messages/{id}/history`: the message as first sent, then after each edit, oldest first,
 * each snapshot with what the edit changed (`prev_*`).
 */
export async function messageHistory(actor: Actor, messageId: number): Promise<Record<string, unknown>[]> {
  const { row } = await accessibleMessage(actor, messageId);
  const [history] = await rows<{ edit_history: Record<string, unknown>[] }>(
    actor.db,
    'SELECT edit_history FROM chat.messages WHERE id = :messageId',
    { messageId },
  );
  const edits = history?.edit_history ?? [];
  // Walk back from the current state to the original, then present forward.
  let state = { topic: row.topic, content: row.content, rendered_content: row.rendered_content };
  const states = [state];
  for (const edit of [...edits].reverse()) {
    state = {
      topic: typeof edit.prev_topic === 'string' ? edit.prev_topic : state.topic,
      content: typeof edit.prev_content === 'string' ? edit.prev_content : state.content,
      rendered_content:
        typeof edit.prev_rendered_content === 'string' ? edit.prev_rendered_content : state.rendered_content,
    };
    states.unshift(state);
  }
  const snapshots: Record<string, unknown>[] = [
    { ...states[0], user_id: row.sender_id, timestamp: seconds(row.date_sent) },
  ];
  edits.forEach((edit, i) => {
    const after = states[i + 1] ?? state;
    const snapshot: Record<string, unknown> = {
      ...after,
      user_id: edit.user_id,
      timestamp: edit.timestamp,
    };
    if ('prev_topic' in edit) snapshot.prev_topic = edit.prev_topic;
    if ('prev_content' in edit) {
      snapshot.prev_content = edit.prev_content;
      snapshot.prev_rendered_content = edit.prev_rendered_content;
    }
    if ('prev_stream' in edit)
      Object.assign(snapshot, { prev_stream: edit.prev_stream, stream: edit.stream });
    snapshots.push(snapshot);
  });
  return snapshots;
}
