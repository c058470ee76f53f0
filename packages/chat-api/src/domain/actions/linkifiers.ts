import { adminRequired, JsonableError } from '../errors.ts';
import type { Actor } from '../context.ts';
import { sendEvent } from '../lib/events/log.ts';
import { realmLinkifiers, validateLinkifier } from '../lib/linkifiers.ts';
import { activeUserIds, isAdmin } from '../lib/users.ts';
import { transact, exec, one, rows, type Transaction } from '@muse/core';

const notFound = () => new JsonableError('Linkifier not found.');

/** Everyone in the organization gets the whole list (Zulip's `realm_linkifiers` event). */
async function announce(actor: Actor, t: Transaction): Promise<void> {
  const { db, realm } = actor;
  await sendEvent(db, t, await activeUserIds(db, realm.id, t), {
    type: 'realm_linkifiers',
    realm_linkifiers: await realmLinkifiers(db, realm.id, t),
  });
}

/** Administrators change linkifiers, one organization's changes at a time (the order is shared). */
async function changing<T>(actor: Actor, change: (t: Transaction) => Promise<T>): Promise<T> {
  if (!isAdmin(actor.user)) throw adminRequired();
  return transact(actor.db, async (t) => {
    // The row lock orders the organization's changes; the new version tells every process that
    // its compiled linkifiers are stale (lib/linkifiers.ts).
    await exec(
      actor.db,
      'UPDATE chat.realms SET linkifiers_version = linkifiers_version + 1 WHERE id = :realmId',
      { realmId: actor.realm.id },
      t,
    );
    const result = await change(t);
    await announce(actor, t);
    return result;
  });
}

/** POST /realm/filters: a new linkifier, last in the order. */
export async function createLinkifier(actor: Actor, pattern: string, urlTemplate: string): Promise<number> {
  validateLinkifier(pattern, urlTemplate);
  return changing(actor, async (t) => {
    const created = await one<{ id: number }>(
      actor.db,
      `INSERT INTO chat.linkifiers (realm_id, pattern, url_template, "order")
       SELECT :realmId, :pattern, :urlTemplate, COALESCE(max("order") + 1, 0) FROM chat.linkifiers WHERE realm_id = :realmId
       RETURNING id`,
      { realmId: actor.realm.id, pattern, urlTemplate },
      t,
    );
    if (!created) throw new Error('linkifier insert returned nothing');
    return created.id;
  });
}

/** PATCH /realm/filters/{id}. */
export async function updateLinkifier(
  actor: Actor,
  id: number,
  pattern: string,
  urlTemplate: string,
): Promise<void> {
  validateLinkifier(pattern, urlTemplate);
  await changing(actor, async (t) => {
    const updated = await rows(
      actor.db,
      `UPDATE chat.linkifiers SET pattern = :pattern, url_template = :urlTemplate
       WHERE id = :id AND realm_id = :realmId RETURNING id`,
      { id, realmId: actor.realm.id, pattern, urlTemplate },
      t,
    );
    if (updated.length === 0) throw notFound();
  });
}

/** DELETE /realm/filters/{id}. */
export async function deleteLinkifier(actor: Actor, id: number): Promise<void> {
  await changing(actor, async (t) => {
    const deleted = await rows(
      actor.db,
      'DELETE FROM chat.linkifiers WHERE id = :id AND realm_id = :realmId RETURNING id',
      { id, realmId: actor.realm.id },
      t,
    );
    if (deleted.length === 0) throw notFound();
  });
}

/** PATCH /realm/linkifiers: the new order, every linkifier named once. */
export async function reorderLinkifiers(actor: Actor, orderedIds: number[]): Promise<void> {
  await changing(actor, async (t) => {
    const existing = (await realmLinkifiers(actor.db, actor.realm.id, t)).map((l) => l.id);
    const given = new Set(orderedIds);
    if (
      given.size !== orderedIds.length ||
      given.size !== existing.length ||
      existing.some((id) => !given.has(id))
    )
      throw new JsonableError('The ordered list must enumerate all existing linkifiers exactly once');
    await exec(
      actor.db,
      `UPDATE chat.linkifiers l SET "order" = o.position
       FROM unnest(CAST(:ids AS int[])) WITH ORDINALITY AS o(id, position) WHERE l.id = o.id`,
      { ids: `{${orderedIds.join(',')}}` },
      t,
    );
  });
}
