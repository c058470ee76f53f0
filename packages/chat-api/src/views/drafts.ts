import type { Router } from 'express';
import {
  createDrafts,
  deleteDraft,
  draftSchema,
  editDraft,
  listDrafts,
  type DraftInput,
} from '../domain/drafts.ts';
import { endpoint, p, pathInt } from '../http/params.ts';
import { authed, type ChatRuntime } from './context.ts';

/** GET/POST /drafts, PATCH/DELETE /drafts/{draft_id}. */
export function draftRoutes(router: Router, runtime: ChatRuntime): void {
  const ctx = authed(runtime);
  router.get(
    '/drafts',
    endpoint({}, ctx, async (_params, actor) => {
      const drafts = await listDrafts(actor.db, actor.user.id);
      return { count: drafts.length, drafts };
    }),
  );
  router.post(
    '/drafts',
    endpoint(
      { drafts: p.json<DraftInput[]>({ type: 'array', items: draftSchema }).default([]) },
      ctx,
      async ({ drafts }, actor) => ({ ids: await createDrafts(actor, drafts) }),
    ),
  );
  router.patch(
    '/drafts/:draft_id',
    endpoint({ draft: p.json<DraftInput>(draftSchema) }, ctx, async ({ draft }, actor, req) => {
      await editDraft(actor, pathInt(req, 'draft_id'), draft);
    }),
  );
  router.delete(
    '/drafts/:draft_id',
    endpoint({}, ctx, async (_params, actor, req) => {
      await deleteDraft(actor, pathInt(req, 'draft_id'));
    }),
  );
}
