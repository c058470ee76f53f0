import { JsonableError } from '../errors.ts';
import type { Actor } from '../context.ts';
import { sendEvent } from '../lib/events/log.ts';
import { MAX_TOPIC_LENGTH } from '../limits.ts';
import { accessibleStream } from '../lib/channels.ts';
import { formatUserTopic, legacyMutedTopics, userTopics, VISIBILITY } from '../lib/user-topics.ts';
import { one, transact } from '@muse/core';

/**
 * `POST /user_topics`: the caller's visibility policy for a topic (0 inherit removes it). The
 * caller's queues get `user_topic`, and the legacy `muted_topics` list for older clients.
 */
export async function setTopicVisibility(
  actor: Actor,
  streamId: number,
  topic: string,
  policy: number,
): Promise<void> {
  const { db, user } = actor;
  if (!(Object.values(VISIBILITY) as number[]).includes(policy))
    throw new JsonableError('Invalid visibility_policy');
  if ([...topic].length > MAX_TOPIC_LENGTH)
    throw new JsonableError(`Topic too long (limit: ${MAX_TOPIC_LENGTH} characters)`);
  await accessibleStream(actor, streamId);
  await transact(db, async (t) => {
    const changed =
      policy === VISIBILITY.INHERIT
        ? await one(
            db,
            `DELETE FROM chat.user_topics WHERE user_id = :userId AND stream_id = :streamId
               AND lower(topic) = lower(:topic) RETURNING now() AS last_updated`,
            { userId: user.id, streamId, topic },
            t,
          )
        : await one(
            db,
            `INSERT INTO chat.user_topics (user_id, stream_id, topic, visibility_policy) VALUES (:userId, :streamId, :topic, :policy)
             ON CONFLICT (user_id, stream_id, lower(topic)) DO UPDATE SET visibility_policy = :policy, last_updated = now()
             RETURNING last_updated`,
            { userId: user.id, streamId, topic, policy },
            t,
          );
    if (!changed) return;
    await sendEvent(db, t, [user.id], {
      type: 'user_topic',
      ...formatUserTopic({
        stream_id: streamId,
        stream_name: '',
        topic,
        visibility_policy: policy,
        last_updated: new Date(),
      }),
    });
    await sendEvent(db, t, [user.id], {
      type: 'muted_topics',
      muted_topics: legacyMutedTopics(await userTopics(db, user.id, t)),
    });
  });
}

/** The legacy `PATCH /users/me/subscriptions/muted_topics`: muting an already muted topic (or unmuting one that is not) is an error, as in Zulip. */
export async function legacyMuteTopic(
  actor: Actor,
  streamId: number,
  topic: string,
  op: 'add' | 'remove',
): Promise<void> {
  const current = await one<{ visibility_policy: number }>(
    actor.db,
    `SELECT visibility_policy FROM chat.user_topics WHERE user_id = :userId AND stream_id = :streamId AND lower(topic) = lower(:topic)`,
    { userId: actor.user.id, streamId, topic },
  );
  const muted = current?.visibility_policy === VISIBILITY.MUTED;
  if (op === 'add' && muted) throw new JsonableError('Topic already muted');
  if (op === 'remove' && !muted) throw new JsonableError('Topic is not muted');
  await setTopicVisibility(actor, streamId, topic, op === 'add' ? VISIBILITY.MUTED : VISIBILITY.INHERIT);
}
