import type { Router } from 'express';
import { addAlertWords, alertWords, removeAlertWords } from '../domain/alert-words.ts';
import { endpoint, p } from '../http/params.ts';
import { authed, type ChatRuntime } from './context.ts';

const words = () => p.json<string[]>({ type: 'array', items: { type: 'string' } });

/** GET/POST/DELETE /users/me/alert_words. */
export function alertWordRoutes(router: Router, runtime: ChatRuntime): void {
  const ctx = authed(runtime);
  router.get(
    '/users/me/alert_words',
    endpoint({}, ctx, async (_params, actor) => ({ alert_words: await alertWords(actor.db, actor.user.id) })),
  );
  router.post(
    '/users/me/alert_words',
    endpoint({ alert_words: words() }, ctx, async ({ alert_words }, actor) => ({
      alert_words: await addAlertWords(actor.db, actor.user.id, alert_words),
    })),
  );
  router.delete(
    '/users/me/alert_words',
    endpoint({ alert_words: words() }, ctx, async ({ alert_words }, actor) => ({
      alert_words: await removeAlertWords(actor.db, actor.user.id, alert_words),
    })),
  );
}
