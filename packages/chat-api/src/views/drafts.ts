import {
  createDrafts,
  deleteDraft,
  draftSchema,
  editDraft,
  type DraftInput,
} from '../domain/actions/drafts.ts';
import { endpoint } from '../http/endpoint.ts';
import { p } from '../http/params.ts';
import { schema } from './schemas.ts';
import { listDrafts } from '../domain/presenters/drafts.ts';

const draftId = () => p.id();

/** GET/POST /drafts, PATCH/DELETE /drafts/{draft_id}. */
export const draftEndpoints = [
  endpoint({
    method: 'get',
    path: '/drafts',
    operationId: 'listDrafts',
    summary: "The caller's drafts, most recently edited first",
    description:
      'Drafts are kept per user so that a message started on one device can be finished on another. ' +
      "Each with id, type ('' unaddressed, stream or private), to, topic, content and timestamp " +
      '(seconds); count is how many.',
    response: {
      required: ['count', 'drafts'],
      properties: { count: { type: 'integer' }, drafts: { type: 'array', items: schema('Draft') } },
    },
    example: {
      response: {
        count: 1,
        drafts: [
          {
            id: 3,
            type: 'stream',
            to: [2],
            topic: 'launch plan',
            content: 'Can we move the review to Thursday?',
            timestamp: 1764300000,
          },
        ],
      },
    },
    view: async (_params, actor) => {
      const drafts = await listDrafts(actor.db, actor.user.id);
      return { count: drafts.length, drafts };
    },
  }),
  endpoint({
    method: 'post',
    path: '/drafts',
    operationId: 'createDrafts',
    summary: 'Create drafts; ids in submission order',
    description:
      "type '' (unaddressed), stream (exactly one channel the caller can see) or private (existing user ids); " +
      'no NUL bytes in topic or content; a missing timestamp is now. All drafts of a call are created, or none; ' +
      'a drafts add event goes to every queue of the caller.',
    params: { drafts: p.json<DraftInput[]>({ type: 'array', items: draftSchema }).default([]) },
    response: { required: ['ids'], properties: { ids: { type: 'array', items: { type: 'integer' } } } },
    example: {
      params: {
        drafts: [
          {
            type: 'stream',
            to: [2],
            topic: 'launch plan',
            content: 'Can we move the review to Thursday?',
            timestamp: 1764300000,
          },
        ],
      },
      response: { ids: [3] },
    },
    view: async ({ drafts }, actor) => ({ ids: await createDrafts(actor, drafts) }),
  }),
  endpoint({
    method: 'patch',
    path: '/drafts/{draft_id}',
    operationId: 'editDraft',
    summary: "Replace a draft (404 when it does not exist or is someone else's); drafts update event",
    description:
      'draft is a JSON object as in POST /drafts, checked the same way (the channel one the caller ' +
      "may see, existing user ids, no NUL bytes), and replaces the stored draft whole. The caller's " +
      'clients get drafts update with the new draft.',
    params: { draft_id: draftId(), draft: p.json<DraftInput>(draftSchema) },
    errors: [404],
    example: {
      params: {
        draft_id: 3,
        draft: {
          type: 'stream',
          to: [2],
          topic: 'launch plan',
          content: 'Can we move the review to Thursday morning?',
          timestamp: 1764300060,
        },
      },
      response: {},
    },
    view: async ({ draft_id, draft }, actor) => {
      await editDraft(actor, draft_id, draft);
    },
  }),
  endpoint({
    method: 'delete',
    path: '/drafts/{draft_id}',
    operationId: 'deleteDraft',
    summary: "Delete a draft (404 when it does not exist or is someone else's); drafts remove event",
    description:
      "Removes one of the caller's drafts, for instance once it was sent. The caller's clients get " +
      'drafts remove with draft_id.',
    params: { draft_id: draftId() },
    errors: [404],
    example: { params: { draft_id: 3 }, response: {} },
    view: async ({ draft_id }, actor) => {
      await deleteDraft(actor, draft_id);
    },
  }),
];
