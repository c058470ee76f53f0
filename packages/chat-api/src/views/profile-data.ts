import {
  createProfileField,
  removeProfileData,
  updateProfileData,
  type ProfileValue,
} from '../domain/actions/profile-fields.ts';
import { adminRequired } from '../http/errors.ts';
import { endpoint } from '../http/endpoint.ts';
import { p } from '../http/params.ts';
import { isAdmin } from '../domain/lib/users.ts';
import { listProfileFields } from '../domain/presenters/profile-fields.ts';
import { schema } from './schemas.ts';
import { transact } from '@muse/core';

export const profileDataSchema = {
  type: 'array',
  items: {
    type: 'object',
    required: ['id', 'value'],
    properties: {
      id: { type: 'integer' },
      value: { anyOf: [{ type: 'string' }, { type: 'null' }, { type: 'array', items: { type: 'integer' } }] },
    },
  },
};

/** The caller's custom profile data, and the organization's field definitions. */
export const profileDataEndpoints = [
  endpoint({
    method: 'patch',
    path: '/users/me/profile_data',
    operationId: 'updateProfileData',
    summary: "Set the caller's custom profile values (data, a JSON list of {id, value}; null removes)",
    description:
      "Each value is checked against its field's type: a short text of at most 50 characters, a " +
      'choice id of a select field, a list of existing user ids for a user field, an http(s) URL, a ' +
      'date as YYYY-MM-DD; an empty value or null removes it. A non-administrator may change only fields with ' +
      'editable_by_user (400 otherwise; an unknown field id is 400 "Field id N not found."). All in one ' +
      'transaction; every active user of the organization gets realm_user update with the changed ' +
      'custom_profile_field.',
    params: { data: p.json<{ id: number; value: ProfileValue }[]>(profileDataSchema) },
    example: { params: { data: [{ id: 1, value: '+1-555-0142' }] }, response: {} },
    view: async ({ data }, actor) => {
      await transact(actor.db, (t) => updateProfileData(actor.db, actor.user, actor.user, data, t));
    },
  }),
  endpoint({
    method: 'delete',
    path: '/users/me/profile_data',
    operationId: 'deleteProfileData',
    summary: "Remove the caller's values for the given field ids (data)",
    description:
      "data is a JSON list of field ids; the caller's value of each is removed, under the same " +
      'rules as setting it (editable_by_user, known ids). Every active user of the organization ' +
      "gets realm_user update with the field's value null.",
    params: { data: p.json<number[]>({ type: 'array', items: { type: 'integer' } }) },
    example: { params: { data: [1] }, response: {} },
    view: async ({ data }, actor) => {
      await removeProfileData(actor.db, actor.user, data);
    },
  }),
  endpoint({
    method: 'get',
    path: '/realm/profile_fields',
    operationId: 'listProfileFields',
    summary: "The organization's custom profile fields",
    description:
      'Every custom profile field of the organization, in display order: its id, name, hint, type, ' +
      'choices (field_data) and whether users may edit it. Any member may read them; administrators ' +
      'create them with POST /realm/profile_fields.',
    response: {
      required: ['custom_fields'],
      properties: { custom_fields: { type: 'array', items: schema('ProfileField') } },
    },
    example: {
      response: {
        custom_fields: [
          {
            id: 1,
            name: 'Phone number',
            hint: 'Including the country code',
            type: 1,
            field_data: '',
            order: 1,
            display_in_profile_summary: false,
            required: false,
            editable_by_user: true,
          },
        ],
      },
    },
    view: async (_params, actor) => ({ custom_fields: await listProfileFields(actor.db, actor.realm.id) }),
  }),
  endpoint({
    method: 'post',
    path: '/realm/profile_fields',
    operationId: 'createProfileField',
    summary: 'Administrators add a custom profile field',
    description:
      'A select field (field_type 3) needs field_data, a JSON object of choice id to {text, order} ' +
      "(both strings); otherwise 400. Text fields' values carry rendered_value, escaped HTML.",
    params: {
      name: p.string({ maxLength: 40 }),
      hint: p.string({ maxLength: 80 }).default(''),
      field_type: p.int(),
      field_data: p.string().default(''),
      editable_by_user: p.bool().default(true),
      required: p.bool().default(false),
    },
    response: { required: ['id'], properties: { id: { type: 'integer', description: 'The new field.' } } },
    example: {
      params: { name: 'Pronouns', hint: 'What pronouns should people use to refer to you?', field_type: 8 },
      response: { id: 2 },
    },
    view: async (params, actor) => {
      if (!isAdmin(actor.user)) throw adminRequired();
      return { id: await createProfileField(actor.db, actor.realm.id, params) };
    },
  }),
];
