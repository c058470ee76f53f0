import { MAX_MESSAGE_LENGTH } from '../domain/limits.ts';
import {
  MAX_SNIPPET_TITLE_LENGTH,
  createSnippet,
  deleteSnippet,
  editSnippet,
} from '../domain/actions/saved-snippets.ts';
import { endpoint } from '../http/endpoint.ts';
import { p } from '../http/params.ts';
import { schema } from './schemas.ts';
import { listSnippets } from '../domain/presenters/saved-snippets.ts';

const title = () => p.string({ maxLength: MAX_SNIPPET_TITLE_LENGTH });
const content = () => p.string({ maxLength: MAX_MESSAGE_LENGTH }).describe('Markdown');
const snippetId = () => p.id();

/** GET/POST /saved_snippets, PATCH/DELETE /saved_snippets/{saved_snippet_id}. */
export const savedSnippetEndpoints = [
  endpoint({
    method: 'get',
    path: '/saved_snippets',
    operationId: 'listSavedSnippets',
    summary: "The caller's saved snippets",
    description:
      'Saved snippets are texts a user inserts into messages often. Each with id, title, content ' +
      "(Markdown) and date_created, oldest first; only the caller's own.",
    response: {
      required: ['saved_snippets'],
      properties: { saved_snippets: { type: 'array', items: schema('SavedSnippet') } },
    },
    example: {
      response: {
        saved_snippets: [
          {
            id: 1,
            title: 'Review request',
            content: 'Could you review this by end of day? Thanks!',
            date_created: 1764300000,
          },
        ],
      },
    },
    view: async (_params, actor) => ({ saved_snippets: await listSnippets(actor.db, actor.user.id) }),
  }),
  endpoint({
    method: 'post',
    path: '/saved_snippets',
    operationId: 'createSavedSnippet',
    summary: 'Create a saved snippet (title and content must not be blank); saved_snippets add event',
    description:
      "title (at most 200 characters) and content (Markdown, at most a message's length); a blank " +
      'one is 400 "Title cannot be empty." or "Content cannot be empty.". Answers saved_snippet_id; ' +
      "the caller's clients get saved_snippets add with the snippet.",
    params: { title: title(), content: content() },
    response: { required: ['saved_snippet_id'], properties: { saved_snippet_id: { type: 'integer' } } },
    example: {
      params: { title: 'Review request', content: 'Could you review this by end of day? Thanks!' },
      response: { saved_snippet_id: 1 },
    },
    view: async (params, actor) => ({
      saved_snippet_id: await createSnippet(actor, params.title, params.content),
    }),
  }),
  endpoint({
    method: 'patch',
    path: '/saved_snippets/{saved_snippet_id}',
    operationId: 'editSavedSnippet',
    summary: "Change a saved snippet's title and/or content; saved_snippets update event",
    description:
      "Neither given is 400 Nothing to update; one that does not exist or is someone else's is 404.",
    params: { saved_snippet_id: snippetId(), title: title().optional(), content: content().optional() },
    errors: [404],
    example: {
      params: { saved_snippet_id: 1, content: 'Could you review this by tomorrow noon? Thanks!' },
      response: {},
    },
    view: async ({ saved_snippet_id, ...change }, actor) => {
      await editSnippet(actor, saved_snippet_id, change);
    },
  }),
  endpoint({
    method: 'delete',
    path: '/saved_snippets/{saved_snippet_id}',
    operationId: 'deleteSavedSnippet',
    summary:
      "Delete a saved snippet (404 when it does not exist or is someone else's); saved_snippets remove event",
    description:
      "Removes one of the caller's snippets; the caller's clients get saved_snippets remove with " +
      "saved_snippet_id. One that does not exist or is someone else's is 404.",
    params: { saved_snippet_id: snippetId() },
    errors: [404],
    example: { params: { saved_snippet_id: 1 }, response: {} },
    view: async ({ saved_snippet_id }, actor) => {
      await deleteSnippet(actor, saved_snippet_id);
    },
  }),
];
