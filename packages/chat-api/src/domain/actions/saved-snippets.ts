import { JsonableError, notFound } from '../errors.ts';
import type { Actor } from '../context.ts';
import { sendEvent } from '../lib/events/log.ts';
import { formatSnippet, type SnippetRow } from '../presenters/saved-snippets.ts';
import { one, transact } from '@muse/core';

export const MAX_SNIPPET_TITLE_LENGTH = 200;

function checkFilled(title: string | undefined, content: string | undefined): void {
  if (title !== undefined && title.trim() === '') throw new JsonableError('Title cannot be empty.');
  if (content !== undefined && content.trim() === '') throw new JsonableError('Content cannot be empty.');
}

export async function createSnippet(actor: Actor, title: string, content: string): Promise<number> {
  checkFilled(title, content);
  return transact(actor.db, async (t) => {
    const row = await one<SnippetRow>(
      actor.db,
      `INSERT INTO chat.saved_snippets (realm_id, user_id, title, content)
       VALUES (:realmId, :userId, :title, :content) RETURNING *`,
      { realmId: actor.realm.id, userId: actor.user.id, title, content },
      t,
    );
    if (!row) throw new Error('snippet insert returned nothing');
    await sendEvent(actor.db, t, [actor.user.id], {
      type: 'saved_snippets',
      op: 'add',
      saved_snippet: formatSnippet(row),
    });
    return row.id;
  });
}

/** PATCH: changes what is given; someone else's snippet does not exist for the caller. */
export async function editSnippet(
  actor: Actor,
  id: number,
  change: { title: string | undefined; content: string | undefined },
): Promise<void> {
  if (change.title === undefined && change.content === undefined)
    throw new JsonableError('Nothing to update');
  checkFilled(change.title, change.content);
  await transact(actor.db, async (t) => {
    const row = await one<SnippetRow>(
      actor.db,
      `UPDATE chat.saved_snippets SET title = coalesce(:title, title), content = coalesce(:content, content)
        WHERE id = :id AND user_id = :userId RETURNING *`,
      { id, userId: actor.user.id, title: change.title ?? null, content: change.content ?? null },
      t,
    );
    if (!row) throw notFound('Saved snippet does not exist.');
    await sendEvent(actor.db, t, [actor.user.id], {
      type: 'saved_snippets',
      op: 'update',
      saved_snippet: formatSnippet(row),
    });
  });
}

export async function deleteSnippet(actor: Actor, id: number): Promise<void> {
  await transact(actor.db, async (t) => {
    const row = await one<{ id: number }>(
      actor.db,
      'DELETE FROM chat.saved_snippets WHERE id = :id AND user_id = :userId RETURNING id',
      { id, userId: actor.user.id },
      t,
    );
    if (!row) throw notFound('Saved snippet does not exist.');
    await sendEvent(actor.db, t, [actor.user.id], {
      type: 'saved_snippets',
      op: 'remove',
      saved_snippet_id: id,
    });
  });
}
