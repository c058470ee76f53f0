import { isDeepStrictEqual } from 'node:util';
import { insufficientPermission, JsonableError, ownerRequired } from '../errors.ts';
import type { Actor } from '../context.ts';
import { sendEvent } from '../lib/events/log.ts';
import { userHasGroupSetting, validateGroupSetting, type GroupSetting } from '../lib/group-settings.ts';
import { renderMarkdown } from '../lib/markdown.ts';
import { isAdmin, isGuest, isOwner } from '../lib/users.ts';
import {
  isSubscribed,
  peerAudience,
  streamByName,
  validateStreamDescription,
  validateStreamName,
  type GroupSettingName,
  type Stream,
} from '../lib/streams.ts';
import { formatBasicStream } from '../presenters/streams.ts';
import { exec, one, rows, type Transaction, transact } from '@muse/core';

// PATCH and DELETE /streams/{stream_id}: a channel's own settings and its archiving, with the
// `stream` events everyone who can see the channel gets (Zulip's do_change_stream_* actions).

/** Zulip's group-setting update: the new value, and optionally the value the client saw. */
export interface GroupSettingUpdate {
  new: GroupSetting;
  old?: GroupSetting;
}

/** The settings a channel's group settings PATCH may change (the deletion ones are the organization's). */
export const EDITABLE_GROUP_SETTINGS = [
  'can_add_subscribers_group',
  'can_remove_subscribers_group',
  'can_administer_channel_group',
  'can_send_message_group',
  'can_subscribe_group',
] as const satisfies readonly GroupSettingName[];

/** Settings that only someone who can read the channel's content may change (Zulip's "content access"). */
const CONTENT_SETTINGS = new Set<string>([
  'can_add_subscribers_group',
  'can_administer_channel_group',
  'can_subscribe_group',
]);

export interface ChannelChanges {
  new_name?: string | undefined;
  description?: string | undefined;
  is_private?: boolean | undefined;
  is_web_public?: boolean | undefined;
  history_public_to_subscribers?: boolean | undefined;
  is_default_stream?: boolean | undefined;
  message_retention_days?: string | undefined;
  groupSettings: Partial<Record<(typeof EDITABLE_GROUP_SETTINGS)[number], GroupSettingUpdate>>;
}

const invalidChannel = () => new JsonableError('Invalid channel ID', { code: 'BAD_REQUEST' });

/**
 * The channel, if the caller may see it exists (an administrator always may; others when it is
 * public or they are subscribed), else Zulip's "Invalid channel ID".
 */
async function visibleChannel(actor: Actor, streamId: number, t?: Transaction): Promise<Stream> {
  const stream = await one<Stream>(
    actor.db,
    'SELECT * FROM chat.streams WHERE realm_id = :realmId AND id = :id FOR UPDATE',
    { realmId: actor.realm.id, id: streamId },
    t,
  );
  if (!stream) throw invalidChannel();
  if (isAdmin(actor.user) || (!stream.invite_only && !isGuest(actor.user))) return stream;
  if (await isSubscribed(actor.db, actor.user.id, stream.id)) return stream;
  throw invalidChannel();
}

/** Organization administrators and the channel's `can_administer_channel_group` administer it. */
async function mayAdminister(actor: Actor, stream: Stream): Promise<boolean> {
  return (
    isAdmin(actor.user) ||
    (await userHasGroupSetting(actor.db, actor.user, stream.can_administer_channel_group))
  );
}

/** A private channel's content (and so its privacy and access settings) is for its subscribers. */
async function hasContentAccess(actor: Actor, stream: Stream): Promise<boolean> {
  return !stream.invite_only || (await isSubscribed(actor.db, actor.user.id, stream.id));
}

function retentionDays(value: string): number | null {
  if (value === 'realm_default') return null;
  if (value === 'unlimited') return -1;
  const days = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(days) || days < 1 || days > 2_147_483_647) {
    throw new JsonableError(`Bad value for 'message_retention_days': ${value}`);
  }
  return days;
}

/** Checks every change before anything is written; returns the columns to set and the events' properties. */
async function plan(actor: Actor, stream: Stream, changes: ChannelChanges) {
  const { config, realm, user, db } = actor;
  const set: Record<string, unknown> = {};
  if (changes.new_name !== undefined) {
    const name = validateStreamName(changes.new_name);
    const taken = await streamByName(db, realm.id, name);
    if (taken && taken.id !== stream.id) throw new JsonableError('Channel name already in use.');
    if (name !== stream.name) set.name = name;
  }
  if (changes.description !== undefined) {
    const description = validateStreamDescription(changes.description.replace(/\s*\n\s*/g, ' ').trim());
    if (description !== stream.description) set.description = description;
  }
  const privacy = [changes.is_private, changes.is_web_public, changes.history_public_to_subscribers];
  if (privacy.some((v) => v !== undefined)) {
    if (!(await hasContentAccess(actor, stream))) throw invalidChannel();
    const webPublic = changes.is_web_public ?? (changes.is_private ? false : stream.is_web_public);
    const inviteOnly = changes.is_private ?? (changes.is_web_public ? false : stream.invite_only);
    if (webPublic && inviteOnly) throw new JsonableError('Invalid parameters');
    const history =
      changes.history_public_to_subscribers ?? (inviteOnly ? stream.history_public_to_subscribers : true);
    // Zulip: only a private channel may hide its history from new subscribers.
    if (!inviteOnly && !history) throw new JsonableError('Invalid parameters');
    if (webPublic && !stream.is_web_public) {
      if (!config.MUSE_CHAT_WEB_PUBLIC_STREAMS || !realm.enable_spectator_access)
        throw new JsonableError('Web-public channels are not enabled.');
      if (!isAdmin(user)) throw insufficientPermission();
    }
    if (inviteOnly && (changes.is_default_stream ?? stream.is_default))
      throw new JsonableError('A default channel cannot be private.');
    if (inviteOnly !== stream.invite_only) set.invite_only = inviteOnly;
    if (webPublic !== stream.is_web_public) set.is_web_public = webPublic;
    if (history !== stream.history_public_to_subscribers) set.history_public_to_subscribers = history;
  }
  if (changes.is_default_stream !== undefined) {
    if (!isAdmin(user)) throw insufficientPermission();
    if (changes.is_default_stream && (set.invite_only ?? stream.invite_only))
      throw new JsonableError('A default channel cannot be private.');
    if (changes.is_default_stream && stream.is_archived) throw new JsonableError('Channel is archived.');
    if (changes.is_default_stream !== stream.is_default) set.is_default = changes.is_default_stream;
  }
  if (changes.message_retention_days !== undefined) {
    if (!isOwner(user)) throw ownerRequired();
    const days = retentionDays(changes.message_retention_days);
    if (days !== stream.message_retention_days) set.message_retention_days = days;
  }
  for (const name of EDITABLE_GROUP_SETTINGS) {
    const update = changes.groupSettings[name];
    if (!update) continue;
    if (CONTENT_SETTINGS.has(name) && !(await hasContentAccess(actor, stream))) throw invalidChannel();
    if (update.old !== undefined && !isDeepStrictEqual(update.old, stream[name]))
      throw new JsonableError("'old' value does not match the expected value.");
    await validateGroupSetting(db, realm.id, name, update.new);
    if (!isDeepStrictEqual(update.new, stream[name])) set[name] = update.new;
  }
  return set;
}

/** `PATCH /streams/{stream_id}`: all changes checked first, then written in one transaction with their events. */
export async function updateChannel(actor: Actor, streamId: number, changes: ChannelChanges): Promise<void> {
  const { db } = actor;
  await transact(db, async (t) => {
    const stream = await visibleChannel(actor, streamId, t);
    if (!(await mayAdminister(actor, stream))) throw insufficientPermission();
    const set = await plan(actor, stream, changes);
    if (Object.keys(set).length === 0) return;
    const columns = Object.keys(set);
    const updated = await one<Stream>(
      db,
      `UPDATE chat.streams SET ${columns
        .map((c) => (c.endsWith('_group') ? `${c} = CAST(:${c} AS jsonb)` : `${c} = :${c}`))
        .join(', ')}
       WHERE id = :id RETURNING *`,
      {
        id: stream.id,
        ...Object.fromEntries(
          columns.map((c) => [c, c.endsWith('_group') ? JSON.stringify(set[c]) : set[c]]),
        ),
      },
      t,
    );
    if (!updated) throw invalidChannel();
    await announceChanges(actor, stream, updated, t);
  });
}

/** The events of one channel change, in the order Zulip sends them. */
async function announceChanges(actor: Actor, before: Stream, after: Stream, t: Transaction): Promise<void> {
  const { db } = actor;
  const had = new Set(await peerAudience(db, before, t));
  const has = await peerAudience(db, after, t);
  // A channel made private hides it from those who are no longer in its audience; made public, shows it.
  const lost = [...had].filter((id) => !has.includes(id));
  const gained = has.filter((id) => !had.has(id));
  const audience = has.filter((id) => had.has(id));
  await sendEvent(db, t, lost, {
    type: 'stream',
    op: 'delete',
    streams: [{ stream_id: after.id }],
    stream_ids: [after.id],
  });
  await sendEvent(db, t, gained, { type: 'stream', op: 'create', streams: [formatBasicStream(after)] });
  const update = (property: string, value: unknown, extra: Record<string, unknown> = {}) =>
    sendEvent(db, t, audience, {
      type: 'stream',
      op: 'update',
      stream_id: after.id,
      name: before.name,
      property,
      value,
      ...extra,
    });
  if (after.name !== before.name) await update('name', after.name);
  if (after.description !== before.description)
    await update('description', after.description, {
      rendered_description: renderMarkdown(after.description),
    });
  if (
    after.invite_only !== before.invite_only ||
    after.is_web_public !== before.is_web_public ||
    after.history_public_to_subscribers !== before.history_public_to_subscribers
  )
    await update('invite_only', after.invite_only, {
      history_public_to_subscribers: after.history_public_to_subscribers,
      is_web_public: after.is_web_public,
    });
  if (after.message_retention_days !== before.message_retention_days)
    await update('message_retention_days', after.message_retention_days);
  for (const name of EDITABLE_GROUP_SETTINGS)
    if (!isDeepStrictEqual(after[name], before[name])) await update(name, after[name]);
  if (after.is_default !== before.is_default) await announceDefaultStreams(actor, t);
}

/** `default_streams` to everyone in the organization (Zulip's do_add/remove_default_stream). */
async function announceDefaultStreams(actor: Actor, t: Transaction): Promise<void> {
  const { db, realm } = actor;
  const ids = await rows<{ id: number }>(
    db,
    'SELECT id FROM chat.streams WHERE realm_id = :realmId AND is_default AND NOT is_archived ORDER BY id',
    { realmId: realm.id },
    t,
  );
  const everyone = await rows<{ id: number }>(
    db,
    'SELECT id FROM chat.users WHERE realm_id = :realmId AND is_active',
    { realmId: realm.id },
    t,
  );
  await sendEvent(
    db,
    t,
    everyone.map((u) => u.id),
    { type: 'default_streams', default_streams: ids.map((s) => s.id) },
  );
}

/**
 * `DELETE /streams/{stream_id}`: archives the channel (Zulip keeps its messages and
 * subscriptions); it stops being a default channel, and everyone who could see it gets
 * `stream` `delete`.
 */
export async function archiveChannel(actor: Actor, streamId: number): Promise<void> {
  const { db } = actor;
  await transact(db, async (t) => {
    const stream = await visibleChannel(actor, streamId, t);
    if (!(await mayAdminister(actor, stream))) throw insufficientPermission();
    if (stream.is_archived) throw new JsonableError('Channel is already deactivated');
    await exec(
      db,
      'UPDATE chat.streams SET is_archived = true, is_default = false WHERE id = :id',
      { id: stream.id },
      t,
    );
    await sendEvent(db, t, await peerAudience(db, stream, t), {
      type: 'stream',
      op: 'delete',
      streams: [{ stream_id: stream.id }],
      stream_ids: [stream.id],
    });
    if (stream.is_default) await announceDefaultStreams(actor, t);
  });
}
