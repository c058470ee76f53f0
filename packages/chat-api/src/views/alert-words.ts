import { addAlertWords, removeAlertWords } from '../domain/actions/alert-words.ts';
import { alertWords } from '../domain/lib/alert-words.ts';
import { endpoint } from '../http/endpoint.ts';
import { p } from '../http/params.ts';

const words = () => p.json<string[]>({ type: 'array', items: { type: 'string' } });
const answer = {
  required: ['alert_words'],
  properties: {
    alert_words: { type: 'array', items: { type: 'string' }, description: "The caller's alert words." },
  },
};

/** GET/POST/DELETE /users/me/alert_words. */
export const alertWordEndpoints = [
  endpoint({
    method: 'get',
    path: '/users/me/alert_words',
    operationId: 'listAlertWords',
    summary: "The caller's alert words",
    response: answer,
    view: async (_params, actor) => ({ alert_words: await alertWords(actor.db, actor.user.id) }),
  }),
  endpoint({
    method: 'post',
    path: '/users/me/alert_words',
    operationId: 'addAlertWords',
    summary: 'Add alert words (case-insensitive; existing ones ignored; at most 100 characters each)',
    params: { alert_words: words() },
    response: answer,
    view: async ({ alert_words }, actor) => ({
      alert_words: await addAlertWords(actor.db, actor.user.id, alert_words),
    }),
  }),
  endpoint({
    method: 'delete',
    path: '/users/me/alert_words',
    operationId: 'removeAlertWords',
    summary: 'Remove alert words, case-insensitively',
    params: { alert_words: words() },
    response: answer,
    view: async ({ alert_words }, actor) => ({
      alert_words: await removeAlertWords(actor.db, actor.user.id, alert_words),
    }),
  }),
];
