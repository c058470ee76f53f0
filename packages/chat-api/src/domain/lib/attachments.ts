import type { Sequelize } from '@muse/core';
import { isGuest, type User } from './users.ts';
import { one, rows, type Transaction } from '@muse/core';

/** An uploaded file (Zulip's Attachment). */
export interface Attachment {
  id: number;
  realm_id: number;
  owner_id: number;
  path_id: string;
  storage_key: string;
  file_name: string;
  content_type: string;
  size: string;
  create_time: Date;
  is_realm_public: boolean;
}

export async function attachmentByPathId(db: Sequelize, pathId: string): Promise<Attachment | undefined> {
  return one<Attachment>(db, 'SELECT * FROM chat.attachments WHERE path_id = :pathId', { pathId });
}

/**
 * Zulip's `validate_attachment_request`: the uploader; any non-guest of the organization once a
 * message to a public channel links it; whoever received a message that links it; a subscriber
 * of a channel with shared history where a message links it.
 */
export async function canAccessAttachment(
  db: Sequelize,
  user: User,
  attachment: Attachment,
  t?: Transaction,
): Promise<boolean> {
  if (attachment.owner_id === user.id) return true;
  if (attachment.realm_id !== user.realm_id) return false;
  if (attachment.is_realm_public && !isGuest(user)) return true;
  const reached = await one(
    db,
    `SELECT 1 FROM chat.attachment_messages am
     WHERE am.attachment_id = :id AND (
       chat.message_flags(:userId, am.message_id) IS NOT NULL
       OR EXISTS (SELECT 1 FROM chat.messages m
                  JOIN chat.streams s ON s.id = m.stream_id AND s.history_public_to_subscribers
                  JOIN chat.subscriptions sub ON sub.stream_id = s.id AND sub.user_id = :userId AND sub.active
                  WHERE m.id = am.message_id))
     LIMIT 1`,
    { id: attachment.id, userId: user.id },
    t,
  );
  return reached !== undefined;
}

/** Bytes of every file uploaded in the organization (Zulip's `upload_space_used`). */
export async function uploadSpaceUsed(db: Sequelize, realmId: number, t?: Transaction): Promise<number> {
  const used = await one<{ n: string }>(
    db,
    'SELECT COALESCE(sum(size), 0) AS n FROM chat.attachments WHERE realm_id = :realmId',
    { realmId },
    t,
  );
  return Number(used?.n ?? 0);
}

/** An attachment as `GET /attachments` and `attachment` events show it (times in milliseconds). */
export async function formatAttachments(db: Sequelize, list: Attachment[], t?: Transaction) {
  const ids = list.map((a) => a.id);
  const links = ids.length
    ? await rows<{ attachment_id: number; id: string; date_sent: Date }>(
        db,
        `SELECT am.attachment_id, m.id, m.date_sent FROM chat.attachment_messages am
         JOIN chat.messages m ON m.id = am.message_id WHERE am.attachment_id IN (:ids) ORDER BY m.id`,
        { ids },
        t,
      )
    : [];
  return list.map((a) => ({
    id: a.id,
    name: a.file_name,
    path_id: a.path_id,
    size: Number(a.size),
    create_time: new Date(a.create_time).getTime(),
    messages: links
      .filter((l) => l.attachment_id === a.id)
      .map((l) => ({ id: Number(l.id), date_sent: new Date(l.date_sent).getTime() })),
  }));
}

/** Path ids of uploads a message's Markdown links to (`/user_uploads/<realm>/<…>/<name>`). */
export function linkedPathIds(content: string): string[] {
  const found = new Set<string>();
  for (const match of content.matchAll(/\/user_uploads\/(\d+\/[0-9a-f]{1,2}\/[\w-]+\/[^\s)\]>"'?#]+)/g)) {
    try {
      found.add(decodeURIComponent(match[1]!));
    } catch {
      // not a link this server wrote
    }
  }
  return [...found];
}
