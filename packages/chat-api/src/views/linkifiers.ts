import {
  createLinkifier,
  deleteLinkifier,
  reorderLinkifiers,
  updateLinkifier,
} from '../domain/actions/linkifiers.ts';
import { realmLinkifiers } from '../domain/lib/linkifiers.ts';
import { endpoint } from '../http/endpoint.ts';
import { p } from '../http/params.ts';

const linkifierList = {
  type: 'array',
  items: {
    type: 'object',
    required: ['id', 'pattern', 'url_template'],
    additionalProperties: false,
    properties: { id: { type: 'integer' }, pattern: { type: 'string' }, url_template: { type: 'string' } },
  },
};

const rules =
  "The pattern is a regular expression in Zulip's syntax ((?P<name>…) groups), refused when nested " +
  'repetition could make it slow; the URL template is an http(s) URL with {name} (percent-encoded) and ' +
  "{+name} expressions over the pattern's groups. Administrators only; everyone gets a realm_linkifiers event.";

/** The organization's linkifiers: patterns the Markdown renderer turns into links. */
export const linkifierEndpoints = [
  endpoint({
    method: 'get',
    path: '/realm/linkifiers',
    operationId: 'getLinkifiers',
    summary: "The organization's linkifiers, in the order they are applied",
    description:
      'Every member may read them: each with its id, pattern and url_template. The Markdown of a ' +
      "message links the text a pattern matches to the template filled with the pattern's groups; " +
      'earlier linkifiers win where matches overlap. Administrators change them with the other ' +
      '/realm/filters operations.',
    response: { required: ['linkifiers'], properties: { linkifiers: linkifierList } },
    example: {
      response: {
        linkifiers: [
          { id: 1, pattern: '#(?P<id>[0-9]+)', url_template: 'https://github.com/zulip/zulip/issues/{id}' },
        ],
      },
    },
    view: async (_params, actor) => ({ linkifiers: await realmLinkifiers(actor.db, actor.realm.id) }),
  }),
  endpoint({
    method: 'post',
    path: '/realm/filters',
    operationId: 'addLinkifier',
    summary: 'Add a linkifier (applied after the existing ones)',
    description: rules,
    params: { pattern: p.string(), url_template: p.string() },
    response: { required: ['id'], properties: { id: { type: 'integer' } } },
    example: {
      params: { pattern: '#(?P<id>[0-9]+)', url_template: 'https://github.com/zulip/zulip/issues/{id}' },
      response: { id: 1 },
    },
    view: async ({ pattern, url_template }, actor) => ({
      id: await createLinkifier(actor, pattern, url_template),
    }),
  }),
  endpoint({
    method: 'patch',
    path: '/realm/filters/{filter_id}',
    operationId: 'updateLinkifier',
    summary: "Change a linkifier's pattern and URL template",
    description: `${rules} An unknown id is 400 "Linkifier not found.".`,
    params: { filter_id: p.id(), pattern: p.string(), url_template: p.string() },
    example: {
      params: {
        filter_id: 1,
        pattern: 'ZUL-(?P<id>[0-9]+)',
        url_template: 'https://tracker.example.com/issue/ZUL-{id}',
      },
      response: {},
    },
    view: async ({ filter_id, pattern, url_template }, actor) => {
      await updateLinkifier(actor, filter_id, pattern, url_template);
    },
  }),
  endpoint({
    method: 'delete',
    path: '/realm/filters/{filter_id}',
    operationId: 'removeLinkifier',
    summary: 'Remove a linkifier',
    description: 'Administrators only. An unknown id is 400 "Linkifier not found.".',
    params: { filter_id: p.id() },
    example: { params: { filter_id: 1 }, response: {} },
    view: async ({ filter_id }, actor) => {
      await deleteLinkifier(actor, filter_id);
    },
  }),
  endpoint({
    method: 'patch',
    path: '/realm/linkifiers',
    operationId: 'reorderLinkifiers',
    summary: 'Set the order linkifiers are applied in',
    description: 'Administrators only; the list names every linkifier exactly once.',
    params: { ordered_linkifier_ids: p.json<number[]>({ type: 'array', items: { type: 'integer' } }) },
    example: { params: { ordered_linkifier_ids: [2, 1] }, response: {} },
    view: async ({ ordered_linkifier_ids }, actor) => {
      await reorderLinkifiers(actor, ordered_linkifier_ids);
    },
  }),
];
