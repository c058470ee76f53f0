import type { Sequelize } from '@muse/core';
import { rows, type Transaction } from '@muse/core';

/** Zulip's visibility policies of a topic for one user. */
export const VISIBILITY = { INHERIT: 0, MUTED: 1, UNMUTED: 2, FOLLOWED: 3 } as const;

export interface UserTopic {
  stream_id: number;
  stream_name: string;
  topic: string;
  visibility_policy: number;
  last_updated: Date;
}

/** The user's topics with a policy other than inherit. */
export async function userTopics(db: Sequelize, userId: number, t?: Transaction): Promise<UserTopic[]> {
  return rows<UserTopic>(
    db,
    `SELECT ut.stream_id, st.name AS stream_name, ut.topic, ut.visibility_policy, ut.last_updated
     FROM chat.user_topics ut JOIN chat.streams st ON st.id = ut.stream_id
     WHERE ut.user_id = :userId ORDER BY ut.last_updated, ut.stream_id`,
    { userId },
    t,
  );
}

const seconds = (d: Date) => Math.floor(new Date(d).getTime() / 1000);

/** The `user_topics` records of `/register` and of `user_topic` events. */
export function formatUserTopic(t: UserTopic): Record<string, unknown> {
  return {
    stream_id: t.stream_id,
    topic_name: t.topic,
    last_updated: seconds(t.last_updated),
    visibility_policy: t.visibility_policy,
  };
}

/** Zulip's legacy `muted_topics`: `[channel name, topic, muted at]` for each muted topic. */
export function legacyMutedTopics(topics: UserTopic[]): [string, string, number][] {
  return topics
    .filter((t) => t.visibility_policy === VISIBILITY.MUTED)
    .map((t) => [t.stream_name, t.topic, seconds(t.last_updated)]);
}
