import type { Router } from 'express';
import { MAX_MESSAGE_LENGTH } from '../domain/limits.ts';
import {
  MAX_SNIPPET_TITLE_LENGTH,
  createSnippet,
  deleteSnippet,
  editSnippet,
  listSnippets,
} from '../domain/saved-snippets.ts';
import { endpoint, p, pathInt } from '../http/params.ts';
import { authed, type ChatRuntime } from './context.ts';

const title = () => p.string({ maxLength: MAX_SNIPPET_TITLE_LENGTH });
const content = () => p.string({ maxLength: MAX_MESSAGE_LENGTH });

/** GET/POST /saved_snippets, PATCH/DELETE /saved_snippets/{saved_snippet_id}. */
export function savedSnippetRoutes(router: Router, runtime: ChatRuntime): void {
  const ctx = authed(runtime);
  router.get(
    '/saved_snippets',
    endpoint({}, ctx, async (_params, actor) => ({
      saved_snippets: await listSnippets(actor.db, actor.user.id),
    })),
  );
  router.post(
    '/saved_snippets',
    endpoint({ title: title(), content: content() }, ctx, async (params, actor) => ({
      saved_snippet_id: await createSnippet(actor, params.title, params.content),
    })),
  );
  router.patch(
    '/saved_snippets/:saved_snippet_id',
    endpoint(
      { title: title().optional(), content: content().optional() },
      ctx,
      async (params, actor, req) => {
        await editSnippet(actor, pathInt(req, 'saved_snippet_id'), params);
      },
    ),
  );
  router.delete(
    '/saved_snippets/:saved_snippet_id',
    endpoint({}, ctx, async (_params, actor, req) => {
      await deleteSnippet(actor, pathInt(req, 'saved_snippet_id'));
    }),
  );
}
