import type { Actor } from '../context.ts';
import { renderZulipMarkdown, type MarkdownContext, type RenderedMentions } from './markdown.ts';
import { compiledLinkifiers } from './linkifiers.ts';
import { rows, type Transaction } from '@muse/core';

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
  context.linkifiers = await compiledLinkifiers(db, realm, t);
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
 * SQL for the `mentioned` / `wildcard_mentioned` flags of each recipient, so that a message to a
 * large channel gets its flags in the statement that stores them, not in a loop over recipients.
 * Mentioned by name or through a group (subgroups included); a channel wildcard reaches every
 * recipient, `@**topic**` those who have posted in the topic, as in Zulip. The sender's own
 * mentions flag them too. `ctes` go into a `WITH RECURSIVE` list; `mentioned(u)` and
 * `wildcard(u)` are boolean expressions of a recipient's id column `u`; `candidates` selects
 * (`user_id`) everyone they can be true for, but a channel wildcard's everyone.
 */
export function mentionFlagsSql(
  mentions: RenderedMentions,
  where: { streamId: number | undefined; topic: string },
): {
  ctes: string;
  candidates: string;
  mentioned: (u: string) => string;
  wildcard: (u: string) => string;
  replacements: Record<string, unknown>;
} {
  const anyMentioned = mentions.userIds.size > 0 || mentions.groupIds.size > 0;
  const everyone =
    mentions.wildcard === 'channel' || (mentions.wildcard === 'topic' && where.streamId === undefined);
  return {
    ctes: `mention_groups(id) AS (
        SELECT unnest(CAST(:mentionGroupIds AS int[]))
        UNION SELECT s.subgroup_id FROM chat.user_group_subgroups s JOIN mention_groups g ON s.group_id = g.id),
      mentioned(user_id) AS (
        SELECT unnest(CAST(:mentionUserIds AS int[]))
        UNION SELECT m.user_id FROM chat.user_group_members m JOIN mention_groups g ON m.group_id = g.id),
      topic_posters(user_id) AS (
        SELECT DISTINCT sender_id FROM chat.messages
        WHERE stream_id = :mentionStreamId AND lower(topic) = lower(:mentionTopic))`,
    candidates:
      mentions.wildcard === 'topic' && !everyone
        ? 'SELECT user_id FROM mentioned UNION SELECT user_id FROM topic_posters'
        : 'SELECT user_id FROM mentioned',
    mentioned: (u) => (anyMentioned ? `${u} IN (SELECT user_id FROM mentioned)` : 'false'),
    wildcard: (u) =>
      everyone
        ? 'true'
        : mentions.wildcard === 'topic'
          ? `${u} IN (SELECT user_id FROM topic_posters)`
          : 'false',
    replacements: {
      mentionGroupIds: `{${[...mentions.groupIds].join(',')}}`,
      mentionUserIds: `{${[...mentions.userIds].join(',')}}`,
      mentionStreamId: where.streamId ?? null,
      mentionTopic: where.topic,
    },
  };
}

/** The mention flags of each of `recipients` who has any (`mentionFlagsSql`, for a message edited). */
export async function mentionFlags(
  actor: Actor,
  mentions: RenderedMentions,
  where: { recipients: number[]; streamId: number | undefined; topic: string },
  t?: Transaction,
): Promise<Map<number, string[]>> {
  const sql = mentionFlagsSql(mentions, where);
  const found = await rows<{ user_id: number; flags: string[] }>(
    actor.db,
    `WITH RECURSIVE ${sql.ctes}
     SELECT r.u AS user_id, array_remove(ARRAY[CASE WHEN ${sql.mentioned('r.u')} THEN 'mentioned' END,
       CASE WHEN ${sql.wildcard('r.u')} THEN 'wildcard_mentioned' END], NULL) AS flags
     FROM unnest(CAST(:recipients AS int[])) AS r(u)`,
    { ...sql.replacements, recipients: `{${where.recipients.join(',')}}` },
    t,
  );
  return new Map(found.filter((row) => row.flags.length > 0).map((row) => [row.user_id, row.flags]));
}
