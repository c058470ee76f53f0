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
    description:
      "Alert words are words or phrases: others' messages the caller received that contain one " +
      '(case-insensitively) match the narrow is:alerted, in GET /messages and in event queues. ' +
      'Each user has at most 1000.',
    response: answer,
    example: { response: { alert_words: ['deadline', 'launch'] } },
    view: async (_params, actor) => ({ alert_words: await alertWords(actor.db, actor.user.id) }),
  }),
  endpoint({
    method: 'post',
    path: '/users/me/alert_words',
    operationId: 'addAlertWords',
    summary: 'Add alert words (case-insensitive; existing ones ignored; at most 100 characters each)',
    description:
      'alert_words is a JSON list of strings; each is trimmed, blank ones are dropped, and one the ' +
      'caller already has in any case is ignored. A word longer than 100 characters is 400 ' +
      '"alert_words[i] is too long"; past 1000 words in all, 400 "Too many alert words" and nothing ' +
      "is added. Answers the whole list; the caller's clients get an alert_words event with it.",
    params: { alert_words: words() },
    response: answer,
    example: {
      params: { alert_words: ['deadline', 'launch'] },
      response: { alert_words: ['deadline', 'launch'] },
    },
    view: async ({ alert_words }, actor) => ({
      alert_words: await addAlertWords(actor.db, actor.user.id, alert_words),
    }),
  }),
  endpoint({
    method: 'delete',
    path: '/users/me/alert_words',
    operationId: 'removeAlertWords',
    summary: 'Remove alert words, case-insensitively',
    description:
      'alert_words is a JSON list of strings, compared trimmed and case-insensitively; a word the ' +
      "caller does not have is no error. Answers the remaining list; the caller's clients get an " +
      'alert_words event with it.',
    params: { alert_words: words() },
    response: answer,
    example: { params: { alert_words: ['deadline'] }, response: { alert_words: ['launch'] } },
    view: async ({ alert_words }, actor) => ({
      alert_words: await removeAlertWords(actor.db, actor.user.id, alert_words),
    }),
  }),
];
