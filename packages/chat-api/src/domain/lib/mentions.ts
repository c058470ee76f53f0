import type { Actor } from '../context.ts';
import { renderZulipMarkdown, type MarkdownContext, type RenderedMentions } from './markdown.ts';
import { rows, type Transaction } from '../sql.ts';

/** A rendered message and the mention flags each recipient gets from it. */
export interface RenderedMessage {
  rendered: string;
  mentions: RenderedMentions;
}

/** The names the text refers to, looked up in the organization: users, groups and channels. */
async function resolveNames(actor: Actor, content: string, t?: Transaction): Promise<MarkdownContext> {
  const { db, realm } = actor;
  const context: MarkdownContext = { users: new Map(), groups: new Map(), streams: new Map() };
  const userRefs = [...content.matchAll(/@_?\*\*([^*\n]+)\*\*/g)].map((m) => m[1] ?? '');
  const groupRefs = [...content.matchAll(/@_?\*([^*\n]+)\*/g)].map((m) => (m[1] ?? '').toLowerCase());
  const streamRefs = [...content.matchAll(/#\*\*([^*\n>]+)(?:>[^*\n]*)?\*\*/g)].map((m) =>
    (m[1] ?? '').toLowerCase(),
  );
  if (userRefs.length) {
    const ids = userRefs.flatMap((ref) => {
      const id = /\|(\d+)$/.exec(ref)?.[1];
      return id ? [Number(id)] : [];
    });
    const names = userRefs.map((ref) => ref.replace(/\|\d+$/, '').toLowerCase());
    const found = await rows<{ id: number; full_name: string }>(
      db,
      `SELECT id, full_name FROM chat.users WHERE realm_id = :realmId AND is_active
         AND (lower(full_name) IN (:names) OR id IN (:ids)) ORDER BY id`,
      { realmId: realm.id, names, ids: ids.length ? ids : [-1] },
      t,
    );
    const sharing = new Map<string, number>();
    for (const user of found)
      sharing.set(user.full_name.toLowerCase(), (sharing.get(user.full_name.toLowerCase()) ?? 0) + 1);
    for (const user of found) {
      context.users.set(`|${user.id}`, user);
      // A name several users share is ambiguous: only `Name|id` reaches them.
      if (sharing.get(user.full_name.toLowerCase()) === 1)
        context.users.set(user.full_name.toLowerCase(), user);
    }
  }
  if (groupRefs.length) {
    const found = await rows<{ id: number; name: string }>(
      db,
      `SELECT id, name FROM chat.user_groups WHERE realm_id = :realmId AND lower(name) IN (:names)
         AND NOT deactivated`,
      { realmId: realm.id, names: groupRefs },
      t,
    );
    for (const group of found) context.groups.set(group.name.toLowerCase(), group);
  }
  if (streamRefs.length) {
    const found = await rows<{ id: number; name: string }>(
      db,
      `SELECT id, name FROM chat.streams WHERE realm_id = :realmId AND lower(name) IN (:names)
         AND (NOT invite_only OR EXISTS (SELECT 1 FROM chat.subscriptions s
           WHERE s.stream_id = streams.id AND s.user_id = :userId AND s.active))`,
      { realmId: realm.id, names: streamRefs, userId: actor.user.id },
      t,
    );
    for (const stream of found) context.streams.set(stream.name.toLowerCase(), stream);
  }
  return context;
}

/** Renders a message's Markdown with the names it refers to resolved. */
export async function renderMessage(
  actor: Actor,
  content: string,
  t?: Transaction,
): Promise<RenderedMessage> {
  const { html, mentions } = renderZulipMarkdown(content, await resolveNames(actor, content, t));
  return { rendered: html, mentions };
}

/**
 * The `mentioned` / `wildcard_mentioned` flags of each recipient: mentioned by name or through a
 * group (subgroups included); a channel wildcard reaches everyone, `@**topic**` those who have
 * posted in the topic, as in Zulip. The sender's own mentions flag them too.
 */
export async function mentionFlags(
  actor: Actor,
  mentions: RenderedMentions,
  where: { recipients: number[]; streamId: number | undefined; topic: string },
  t?: Transaction,
): Promise<Map<number, string[]>> {
  const flags = new Map<number, string[]>();
  const add = (userId: number, flag: string) => {
    if (!where.recipients.includes(userId)) return;
    const current = flags.get(userId) ?? [];
    if (!current.includes(flag)) flags.set(userId, [...current, flag]);
  };
  for (const id of mentions.userIds) add(id, 'mentioned');
  if (mentions.groupIds.size > 0) {
    const members = await rows<{ user_id: number }>(
      actor.db,
      `WITH RECURSIVE g(id) AS (SELECT unnest(ARRAY[:groupIds]::int[])
         UNION SELECT s.subgroup_id FROM chat.user_group_subgroups s JOIN g ON s.group_id = g.id)
       SELECT DISTINCT m.user_id FROM chat.user_group_members m JOIN g ON m.group_id = g.id`,
      { groupIds: [...mentions.groupIds] },
      t,
    );
    for (const m of members) add(m.user_id, 'mentioned');
  }
  if (mentions.wildcard === 'channel' || (mentions.wildcard === 'topic' && where.streamId === undefined)) {
    for (const id of where.recipients) add(id, 'wildcard_mentioned');
  } else if (mentions.wildcard === 'topic') {
    const posters = await rows<{ sender_id: number }>(
      actor.db,
      `SELECT DISTINCT sender_id FROM chat.messages WHERE stream_id = :streamId AND lower(topic) = lower(:topic)`,
      { streamId: where.streamId, topic: where.topic },
      t,
    );
    for (const p of posters) add(p.sender_id, 'wildcard_mentioned');
  }
  return flags;
}
