import type { Router } from 'express';
import {
  createProfileField,
  listProfileFields,
  removeProfileData,
  updateProfileData,
  type ProfileValue,
} from '../domain/profile-fields.ts';
import { adminRequired } from '../http/errors.ts';
import { endpoint, p } from '../http/params.ts';
import { isAdmin } from '../domain/users.ts';
import { authed, type ChatRuntime } from './context.ts';

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
export function profileDataRoutes(router: Router, runtime: ChatRuntime): void {
  const ctx = authed(runtime);
  router.patch(
    '/users/me/profile_data',
    endpoint(
      { data: p.json<{ id: number; value: ProfileValue }[]>(profileDataSchema) },
      ctx,
      async ({ data }, actor) => {
        await actor.db.transaction((t) => updateProfileData(actor.db, actor.user, actor.user, data, t));
      },
    ),
  );
  router.delete(
    '/users/me/profile_data',
    endpoint(
      { data: p.json<number[]>({ type: 'array', items: { type: 'integer' } }) },
      ctx,
      async ({ data }, actor) => {
        await removeProfileData(actor.db, actor.user, data);
      },
    ),
  );
  router.get(
    '/realm/profile_fields',
    endpoint({}, ctx, async (_params, actor) => ({
      custom_fields: await listProfileFields(actor.db, actor.realm.id),
    })),
  );
  router.post(
    '/realm/profile_fields',
    endpoint(
      {
        name: p.string({ maxLength: 40 }),
        hint: p.string({ maxLength: 80 }).default(''),
        field_type: p.int(),
        field_data: p.string().default(''),
        editable_by_user: p.bool().default(true),
        required: p.bool().default(false),
      },
      ctx,
      async (params, actor) => {
        if (!isAdmin(actor.user)) throw adminRequired();
        return { id: await createProfileField(actor.db, actor.realm.id, params) };
      },
    ),
  );
}
