import type { Sequelize } from '@muse/core';
import { JsonableError } from '../errors.ts';
import type { Actor } from '../context.ts';
import { sendEvent } from '../lib/events/log.ts';
import type { GroupSetting } from '../lib/group-settings.ts';
import { lockChannels } from '../lib/channel-locks.ts';
import { systemGroupIds } from '../lib/realms.ts';
import type { User } from '../lib/users.ts';
import {
  defaultStreams,
  firstMessageIds,
  GROUP_SETTING_NAMES,
  peerAudience,
  streamById,
  subscriberIds,
  type CreationSettings,
  type GroupSettingName,
  type Stream,
  type SubscriptionRow,
} from '../lib/streams.ts';
import { formatBasicStream, formatSubscription } from '../presenters/streams.ts';
import { exec, one, rows, type Transaction } from '@muse/core';

// Channel writes that send events: creation, (un)subscription, subscription settings.

const COLORS = [
  '#76ce90',
  '#fae589',
  '#a6c7e5',
  '#e79ab5',
  '#bfd56f',
  '#f4ae55',
  '#b0a5fd',
  '#addfe5',
  '#f5ce6e',
];

/** Another request created a channel of this name after we looked; the caller starts over. */
export class ChannelCreatedMeanwhile extends JsonableError {
  constructor(name: string) {
    super(`Channel '${name}' was created by another request at the same time; please retry.`);
  }
}

export async function createStream(
  actor: Pick<Actor, 'db' | 'realm' | 'user'>,
  input: { name: string; description: string },
  settings: CreationSettings,
  retention: number | null,
  t: Transaction,
): Promise<Stream> {
  const { db, realm, user } = actor;
  const groups = await systemGroupIds(db, realm.id, t);
  const defaults: Record<GroupSettingName, GroupSetting> = {
    can_add_subscribers_group: groups['role:nobody'],
    can_remove_subscribers_group: groups['role:administrators'],
    can_administer_channel_group: { direct_members: [user.id], direct_subgroups: [] },
    can_delete_any_message_group: groups['role:administrators'],
    can_delete_own_message_group: groups['role:everyone'],
    can_send_message_group: groups['role:everyone'],
    can_subscribe_group: groups['role:nobody'],
  };
  const values = { ...defaults, ...settings.groupSettings };
  const stream = await one<Stream>(
    db,
    `INSERT INTO chat.streams (realm_id, name, description, creator_id, invite_only, is_web_public,
       history_public_to_subscribers, message_retention_days, topics_policy, is_default,
       ${GROUP_SETTING_NAMES.join(', ')})
     VALUES (:realmId, :name, :description, :creatorId, :inviteOnly, :webPublic, :history, :retention, :topicsPolicy,
       :isDefault, ${GROUP_SETTING_NAMES.map((n) => `CAST(:${n} AS jsonb)`).join(', ')})
     ON CONFLICT (realm_id, lower(name)) DO NOTHING
     RETURNING *`,
    {
      realmId: realm.id,
      name: input.name,
      description: input.description,
      creatorId: user.id,
      inviteOnly: settings.invite_only,
      webPublic: settings.is_web_public,
      // Zulip's default: private channels hide earlier history unless asked otherwise.
      history: settings.history_public_to_subscribers ?? !settings.invite_only,
      retention,
      topicsPolicy: settings.topics_policy ?? 'inherit',
      isDefault: settings.is_default_stream,
      ...Object.fromEntries(GROUP_SETTING_NAMES.map((n) => [n, JSON.stringify(values[n])])),
    },
    t,
  );
  if (!stream) throw new ChannelCreatedMeanwhile(input.name);
  const audience = await peerAudience(db, stream, t);
  await sendEvent(db, t, stream.invite_only ? [user.id] : audience, {
    type: 'stream',
    op: 'create',
    streams: [formatBasicStream(stream)],
  });
  return stream;
}

/** Subscribes a newly created user to the default channels, as Zulip does at sign-up. */
export async function joinDefaultStreams(db: Sequelize, user: User, t: Transaction): Promise<void> {
  for (const stream of await defaultStreams(db, user.realm_id, t))
    await subscribeUsers(db, stream, [user], t);
}

/**
 * Subscribes users; returns those that were newly subscribed. Emits add and peer_add events.
 * Callers skip users they found subscribed already: even a no-op upsert locks the row, a write.
 * Under the channel's exclusive lock (lib/channel-locks.ts; a caller changing several channels
 * takes theirs first): the subscribers announced include every change committed before.
 */
export async function subscribeUsers(
  db: Sequelize,
  stream: Stream,
  users: User[],
  t: Transaction,
): Promise<{ added: User[]; already: User[] }> {
  if (users.length === 0) return { added: [], already: [] };
  await lockChannels(db, t, [stream.id], 'exclusive');
  // One statement for every user; each new row's colour follows that user's number of
  // subscriptions. The upsert decides under a row lock, so two concurrent calls cannot both report "added".
  const activated = await rows<SubscriptionRow>(
    db,
    `INSERT INTO chat.subscriptions (user_id, stream_id, color)
     SELECT u, :streamId,
       (ARRAY[:colors]::text[])[1 + ((SELECT count(*) FROM chat.subscriptions s WHERE s.user_id = u) % :colorCount)::int]
     FROM unnest(ARRAY[:userIds]::int[]) AS u ORDER BY u
     ON CONFLICT (user_id, stream_id) DO UPDATE SET active = true WHERE NOT chat.subscriptions.active
     RETURNING *`,
    { streamId: stream.id, colors: COLORS, colorCount: COLORS.length, userIds: users.map((u) => u.id) },
    t,
  );
  const rowOf = new Map(activated.map((sub) => [sub.user_id, sub]));
  const added = users.filter((u) => rowOf.has(u.id));
  const already = users.filter((u) => !rowOf.has(u.id));
  if (added.length === 0) return { added, already };
  const subscribers = (await subscriberIds(db, [stream.id], t)).get(stream.id) ?? [];
  // Inside the transaction: a second pooled connection per request could exhaust the pool.
  const firstMessage = (await firstMessageIds(db, [stream.id], t)).get(stream.id) ?? null;
  for (const target of added) {
    await sendEvent(db, t, [target.id], {
      type: 'subscription',
      op: 'add',
      subscriptions: [
        formatSubscription(stream, rowOf.get(target.id)!, { subscribers, firstMessageId: firstMessage }),
      ],
    });
  }
  const addedIds = new Set(added.map((u) => u.id));
  const peers = (await peerAudience(db, stream, t)).filter((id) => !addedIds.has(id));
  await sendEvent(db, t, peers, {
    type: 'subscription',
    op: 'peer_add',
    stream_ids: [stream.id],
    user_ids: [...addedIds],
  });
  return { added, already };
}

/** Unsubscribes users, under the channel's exclusive lock (as subscribeUsers); emits remove and peer_remove. */
export async function unsubscribeUsers(
  db: Sequelize,
  stream: Stream,
  users: User[],
  t: Transaction,
): Promise<{ removed: User[]; notSubscribed: User[] }> {
  await lockChannels(db, t, [stream.id], 'exclusive');
  const removed: User[] = [];
  const notSubscribed: User[] = [];
  for (const target of users) {
    const updated = await rows(
      db,
      `UPDATE chat.subscriptions SET active = false WHERE user_id = :userId AND stream_id = :streamId AND active
       RETURNING user_id`,
      { userId: target.id, streamId: stream.id },
      t,
    );
    (updated.length ? removed : notSubscribed).push(target);
  }
  for (const target of removed) {
    await sendEvent(db, t, [target.id], {
      type: 'subscription',
      op: 'remove',
      subscriptions: [{ name: stream.name, stream_id: stream.id }],
    });
  }
  if (removed.length) {
    const removedIds = removed.map((u) => u.id);
    const peers = (await peerAudience(db, stream, t)).filter((id) => !removedIds.includes(id));
    await sendEvent(db, t, peers, {
      type: 'subscription',
      op: 'peer_remove',
      stream_ids: [stream.id],
      user_ids: removedIds,
    });
  }
  return { removed, notSubscribed };
}

export const SUBSCRIPTION_PROPERTIES = [
  'color',
  'is_muted',
  'in_home_view',
  'pin_to_top',
  'desktop_notifications',
  'audible_notifications',
  'push_notifications',
  'email_notifications',
  'wildcard_mentions_notify',
] as const;

/**
 * Sets one subscription property. `is_muted` and its legacy inverse `in_home_view` are one
 * column; both events are sent so old and new clients each see the property they know.
 */
export async function updateSubscriptionProperty(
  db: Sequelize,
  user: User,
  realmId: number,
  change: { stream_id: number; property: string; value: unknown },
  t: Transaction,
): Promise<void> {
  const { stream_id: streamId, property, value } = change;
  if (!(SUBSCRIPTION_PROPERTIES as readonly string[]).includes(property)) {
    throw new JsonableError(`Unknown subscription property: ${property}`);
  }
  const stream = await streamById(db, realmId, streamId);
  if (!stream) throw new JsonableError('Invalid channel ID');
  const sub = await one(
    db,
    'SELECT 1 FROM chat.subscriptions WHERE user_id = :u AND stream_id = :s AND active',
    {
      u: user.id,
      s: streamId,
    },
    t,
  );
  if (!sub) throw new JsonableError(`Not subscribed to channel ID ${streamId}`);
  if (property === 'color') {
    if (typeof value !== 'string' || !/^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(value)) {
      throw new JsonableError('color is not a valid hex color code');
    }
  } else if (typeof value !== 'boolean') {
    throw new JsonableError(`${property} is not a boolean`);
  }
  const column = property === 'in_home_view' ? 'is_muted' : property;
  const stored = property === 'in_home_view' ? !value : value;
  await exec(
    db,
    `UPDATE chat.subscriptions SET "${column}" = :stored WHERE user_id = :u AND stream_id = :s`,
    {
      stored,
      u: user.id,
      s: streamId,
    },
    t,
  );
  const event = (p: string, v: unknown) => ({
    type: 'subscription',
    op: 'update',
    stream_id: streamId,
    property: p,
    value: v,
  });
  if (column === 'is_muted') {
    await sendEvent(db, t, [user.id], event('in_home_view', !stored));
    await sendEvent(db, t, [user.id], event('is_muted', stored));
  } else {
    await sendEvent(db, t, [user.id], event(property, value));
  }
}
