import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { FileStorage } from '@muse/core';
import { JsonableError, notFound } from '../errors.ts';
import type { Actor } from '../context.ts';
import { sendEvent } from '../lib/events/log.ts';
import {
  attachmentByPathId,
  canAccessAttachment,
  formatAttachments,
  linkedPathIds,
  uploadSpaceUsed,
  type Attachment,
} from '../lib/attachments.ts';
import type { Stream } from '../lib/streams.ts';
import { transact, one, rows, type Transaction } from '@muse/core';

/** Zulip's `sanitize_name`: letters, digits, `_`, `.`, `-`; runs of spaces and dashes become one dash. */
export function sanitizeFileName(raw: string): string {
  const name = raw
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}_\s.-]/gu, '')
    .trim()
    .replace(/[-\s]+/g, '-');
  return ['', '.', '..'].includes(name) ? 'uploaded-file' : name;
}

export interface UploadedFile {
  filename: string;
  contentType: string;
  /** Streamed to storage: an upload is never held whole in memory here. */
  contents: Readable;
}

/**
 * POST /user_uploads: the contents go to the file storage (local disk or S3) under a key of
 * their own, then the attachment row, owned by the caller, with an unguessable path
 * `<realm>/<2 hex>/<24 random>/<name>`. The owner's queues get `attachment` `add`.
 */
export async function storeUpload(actor: Actor, storage: FileStorage, file: UploadedFile) {
  const name = sanitizeFileName(file.filename);
  const pathId = [
    actor.realm.id,
    randomInt(256).toString(16),
    randomBytes(18).toString('base64url'),
    name,
  ].join('/');
  const key = `chat-upload-${randomUUID()}`;
  // Storage writes under a temporary name first: a failed put leaves nothing behind.
  const { size } = await storage.put(key, file.contents);
  try {
    await transact(actor.db, async (t) => {
      const attachment = await one<Attachment>(
        actor.db,
        `INSERT INTO chat.attachments (realm_id, owner_id, path_id, storage_key, file_name, content_type, size)
         VALUES (:realmId, :ownerId, :pathId, :key, :name, :contentType, :size) RETURNING *`,
        {
          realmId: actor.realm.id,
          ownerId: actor.user.id,
          pathId,
          key,
          name,
          contentType: file.contentType || 'application/octet-stream',
          size,
        },
        t,
      );
      await notifyOwner(actor, 'add', attachment!, t);
    });
  } catch (error) {
    await storage.delete(key).catch(() => {});
    throw error;
  }
  const url = `/user_uploads/${pathId.split('/').map(encodeURIComponent).join('/')}`;
  return { uri: url, url, filename: name };
}

async function notifyOwner(actor: Actor, op: 'add' | 'update', attachment: Attachment, t: Transaction) {
  const [formatted] = await formatAttachments(actor.db, [attachment], t);
  await sendEvent(actor.db, t, [attachment.owner_id], {
    type: 'attachment',
    op,
    attachment: formatted,
    upload_space_used: await uploadSpaceUsed(actor.db, actor.realm.id, t),
  });
}

/** GET /attachments: the caller's uploads, with the messages linking each. */
export async function listAttachments(actor: Actor) {
  const own = await rows<Attachment>(
    actor.db,
    'SELECT * FROM chat.attachments WHERE owner_id = :userId ORDER BY id',
    { userId: actor.user.id },
  );
  return {
    attachments: await formatAttachments(actor.db, own),
    upload_space_used: await uploadSpaceUsed(actor.db, actor.realm.id),
  };
}

/** DELETE /attachments/{id}: the caller's own upload only; its contents are removed after the commit. */
export async function deleteAttachment(actor: Actor, storage: FileStorage, id: number): Promise<void> {
  const removed = await transact(actor.db, async (t) => {
    const attachment = await one<Attachment>(
      actor.db,
      'DELETE FROM chat.attachments WHERE id = :id AND owner_id = :userId RETURNING *',
      { id, userId: actor.user.id },
      t,
    );
    if (!attachment) throw new JsonableError('Invalid attachment');
    await sendEvent(actor.db, t, [actor.user.id], {
      type: 'attachment',
      op: 'remove',
      attachment: { id },
      upload_space_used: await uploadSpaceUsed(actor.db, actor.realm.id, t),
    });
    return attachment;
  });
  await storage.delete(removed.storage_key);
}

/**
 * The sender's uploads a new message links to become its attachments (Zulip's
 * `do_claim_attachments`): the sender must be able to see each file; a link to a public
 * channel makes the file visible to the organization's members.
 */
export async function claimAttachments(
  actor: Actor,
  messageId: number,
  content: string,
  stream: Stream | undefined,
  t: Transaction,
): Promise<void> {
  for (const pathId of linkedPathIds(content)) {
    const attachment = await attachmentByPathId(actor.db, pathId);
    if (!attachment || !(await canAccessAttachment(actor.db, actor.user, attachment, t))) continue;
    await one(
      actor.db,
      `INSERT INTO chat.attachment_messages (attachment_id, message_id) VALUES (:id, :messageId)
       ON CONFLICT DO NOTHING RETURNING 1`,
      { id: attachment.id, messageId },
      t,
    );
    const realmPublic = stream !== undefined && !stream.invite_only;
    if (realmPublic && !attachment.is_realm_public)
      await one(
        actor.db,
        'UPDATE chat.attachments SET is_realm_public = true WHERE id = :id RETURNING 1',
        { id: attachment.id },
        t,
      );
    if (attachment.owner_id === actor.user.id)
      await notifyOwner(
        actor,
        'update',
        { ...attachment, is_realm_public: attachment.is_realm_public || realmPublic },
        t,
      );
  }
}

/** GET /user_uploads/<path>: the file's record and contents, for whoever may see it. */
export async function openUpload(actor: Actor, storage: FileStorage, pathId: string) {
  const attachment = await attachmentByPathId(actor.db, pathId);
  if (!attachment) throw notFound('File not found');
  if (!(await canAccessAttachment(actor.db, actor.user, attachment)))
    throw new JsonableError('You are not authorized to view this file.', { status: 403 });
  return { attachment, contents: await storage.get(attachment.storage_key) };
}
