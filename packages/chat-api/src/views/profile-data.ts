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
import { transact } from '../domain/lib/transact.ts';

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
    params: { data: p.json<{ id: number; value: ProfileValue }[]>(profileDataSchema) },
    view: async ({ data }, actor) => {
      await transact(actor.db, (t) => updateProfileData(actor.db, actor.user, actor.user, data, t));
    },
  }),
  endpoint({
    method: 'delete',
    path: '/users/me/profile_data',
    operationId: 'deleteProfileData',
    summary: "Remove the caller's values for the given field ids (data)",
    params: { data: p.json<number[]>({ type: 'array', items: { type: 'integer' } }) },
    view: async ({ data }, actor) => {
      await removeProfileData(actor.db, actor.user, data);
    },
  }),
  endpoint({
    method: 'get',
    path: '/realm/profile_fields',
    operationId: 'listProfileFields',
    summary: "The organization's custom profile fields",
    response: {
      required: ['custom_fields'],
      properties: { custom_fields: { type: 'array', items: schema('ProfileField') } },
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
    view: async (params, actor) => {
      if (!isAdmin(actor.user)) throw adminRequired();
      return { id: await createProfileField(actor.db, actor.realm.id, params) };
    },
  }),
];
