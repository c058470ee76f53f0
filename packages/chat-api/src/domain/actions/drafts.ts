import { JsonableError, notFound } from '../errors.ts';
import type { Actor } from '../context.ts';
import { sendEvent } from '../lib/events/log.ts';
import { MAX_TOPIC_LENGTH } from '../limits.ts';
import { streamById, subscriberIds } from '../lib/streams.ts';
import { formatDraft, type DraftRow } from '../presenters/drafts.ts';
import { one, rows, transact } from '@muse/core';

/** A draft as clients send it (Zulip's Draft object); `timestamp` is filled by the server when absent. */
export interface DraftInput {
  type: '' | 'stream' | 'private';
  to: number[];
  topic: string;
  content: string;
  timestamp?: number;
}

/** JSON Schema of one draft object in a request. */
export const draftSchema = {
  type: 'object',
  required: ['type', 'to', 'topic', 'content'],
  additionalProperties: false,
  properties: {
    type: { enum: ['', 'stream', 'private'] },
    to: { type: 'array', items: { type: 'integer' } },
    topic: { type: 'string' },
    content: { type: 'string' },
    timestamp: { type: 'integer', minimum: 0 },
  },
} as const;

/** Zulip's rules: no NUL bytes; a channel draft names exactly one channel the user can see; direct ones existing users. */
async function validDraft(actor: Actor, draft: DraftInput): Promise<DraftInput & { timestamp: number }> {
  if (draft.content.includes('\u0000')) throw new JsonableError('Content must not contain null bytes');
  if (draft.topic.includes('\u0000')) throw new JsonableError('Topic must not contain null bytes');
  const timestamp = draft.timestamp ?? Math.floor(Date.now() / 1000);
  if (draft.type === '') return { type: '', to: [], topic: '', content: draft.content, timestamp };
  if (draft.type === 'stream') {
    if (draft.to.length !== 1)
      throw new JsonableError('Must specify exactly 1 channel ID for channel messages');
    const streamId = draft.to[0]!;
    const stream = await streamById(actor.db, actor.realm.id, streamId);
    const subscribed = stream ? ((await subscriberIds(actor.db, [streamId])).get(streamId) ?? []) : [];
    if (!stream || (stream.invite_only && !subscribed.includes(actor.user.id)))
      throw new JsonableError('Invalid channel ID');
    const topic = [...draft.topic].slice(0, MAX_TOPIC_LENGTH).join('');
    return { type: 'stream', to: [streamId], topic, content: draft.content, timestamp };
  }
  const to = [...new Set(draft.to)];
  const found = await rows<{ id: number }>(
    actor.db,
    'SELECT id FROM chat.users WHERE realm_id = :realmId AND id IN (:ids)',
    { realmId: actor.realm.id, ids: to.length ? to : [-1] },
  );
  const missing = to.find((id) => !found.some((row) => row.id === id));
  if (missing !== undefined) throw new JsonableError(`Invalid user ID ${missing}`);
  return { type: 'private', to, topic: '', content: draft.content, timestamp };
}

/** POST /drafts: all or none are created; ids in submission order; one `drafts` add event. */
export async function createDrafts(actor: Actor, drafts: DraftInput[]): Promise<number[]> {
  const valid: (DraftInput & { timestamp: number })[] = [];
  for (const draft of drafts) valid.push(await validDraft(actor, draft));
  return transact(actor.db, async (t) => {
    const created: DraftRow[] = [];
    for (const draft of valid) {
      const row = await one<DraftRow>(
        actor.db,
        `INSERT INTO chat.drafts (user_id, type, "to", topic, content, last_edit_time)
         VALUES (:userId, :type, CAST(:to AS int[]), :topic, :content, to_timestamp(:timestamp)) RETURNING *`,
        { userId: actor.user.id, ...draft, to: `{${draft.to.join(',')}}` },
        t,
      );
      if (!row) throw new Error('draft insert returned nothing');
      created.push(row);
    }
    if (created.length)
      await sendEvent(actor.db, t, [actor.user.id], {
        type: 'drafts',
        op: 'add',
        drafts: created.map(formatDraft),
      });
    return created.map((row) => row.id);
  });
}

/** PATCH /drafts/{id}: the draft is replaced. */
export async function editDraft(actor: Actor, id: number, draft: DraftInput): Promise<void> {
  const valid = await validDraft(actor, draft);
  await transact(actor.db, async (t) => {
    const row = await one<DraftRow>(
      actor.db,
      `UPDATE chat.drafts SET type = :type, "to" = CAST(:to AS int[]), topic = :topic, content = :content,
              last_edit_time = to_timestamp(:timestamp)
        WHERE id = :id AND user_id = :userId RETURNING *`,
      { id, userId: actor.user.id, ...valid, to: `{${valid.to.join(',')}}` },
      t,
    );
    if (!row) throw notFound('Draft does not exist');
    await sendEvent(actor.db, t, [actor.user.id], { type: 'drafts', op: 'update', draft: formatDraft(row) });
  });
}

export async function deleteDraft(actor: Actor, id: number): Promise<void> {
  await transact(actor.db, async (t) => {
    const row = await one<{ id: number }>(
      actor.db,
      'DELETE FROM chat.drafts WHERE id = :id AND user_id = :userId RETURNING id',
      { id, userId: actor.user.id },
      t,
    );
    if (!row) throw notFound('Draft does not exist');
    await sendEvent(actor.db, t, [actor.user.id], { type: 'drafts', op: 'remove', draft_id: id });
  });
}
