import type { Sequelize } from '@muse/core';
import { JsonableError } from '../errors.ts';
import { sendEvent } from '../lib/events/log.ts';
import { FIELD_TYPE } from '../limits.ts';
import { activeUserIds, isAdmin, profileEntry, type User } from '../lib/users.ts';
import { listProfileFields, type ProfileField } from '../presenters/profile-fields.ts';
import { exec, one, rows, type Transaction, transact } from '@muse/core';

export type ProfileValue = string | number[] | null;

/**
 * The choices of a select field: its field_data is a JSON object of choice id → {text, order}.
 * Checked when the field is created, and again when read, so a bad definition is a 400.
 */
function selectChoices(fieldData: string): Record<string, unknown> {
  let choices: unknown;
  try {
    choices = JSON.parse(fieldData);
  } catch {
    choices = undefined;
  }
  const valid =
    typeof choices === 'object' &&
    choices !== null &&
    !Array.isArray(choices) &&
    Object.keys(choices).length > 0 &&
    Object.values(choices).every(
      (c: unknown) =>
        typeof c === 'object' &&
        c !== null &&
        typeof (c as { text?: unknown }).text === 'string' &&
        typeof (c as { order?: unknown }).order === 'string',
    );
  if (!valid)
    throw new JsonableError('Invalid field_data: a select field needs {"id": {"text", "order"}, ...}');
  return choices as Record<string, unknown>;
}

export async function createProfileField(
  db: Sequelize,
  realmId: number,
  input: {
    name: string;
    hint: string;
    field_type: number;
    field_data: string;
    editable_by_user: boolean;
    required: boolean;
  },
): Promise<number> {
  if (!Object.values(FIELD_TYPE).includes(input.field_type)) throw new JsonableError('Invalid field type.');
  if (input.name.trim() === '') throw new JsonableError('Label cannot be blank.');
  if (input.field_type === FIELD_TYPE.SELECT) selectChoices(input.field_data);
  return transact(db, async (t) => {
    const created = await one<{ id: number }>(
      db,
      `INSERT INTO chat.custom_profile_fields (realm_id, name, hint, type, field_data, editable_by_user, required, "order")
       VALUES (:realmId, :name, :hint, :type, :fieldData, :editable, :required,
         (SELECT coalesce(max("order"), 0) + 1 FROM chat.custom_profile_fields WHERE realm_id = :realmId))
       RETURNING id`,
      {
        realmId,
        name: input.name.trim(),
        hint: input.hint,
        type: input.field_type,
        fieldData: input.field_data,
        editable: input.editable_by_user,
        required: input.required,
      },
      t,
    );
    await sendEvent(db, t, await activeUserIds(db, realmId, t), {
      type: 'custom_profile_fields',
      fields: await listProfileFields(db, realmId, t),
    });
    return created?.id ?? 0;
  });
}

/** Validates a value for its field's type; returns the stored text. */
async function storedValue(
  db: Sequelize,
  field: ProfileField,
  value: Exclude<ProfileValue, null>,
): Promise<string> {
  if (field.type === FIELD_TYPE.USER) {
    if (!Array.isArray(value)) throw new JsonableError(`${field.name} is not a list`);
    const found = value.length
      ? await rows(db, 'SELECT id FROM chat.users WHERE realm_id = :realmId AND id IN (:ids)', {
          realmId: field.realm_id,
          ids: value,
        })
      : [];
    if (found.length !== new Set(value).size) throw new JsonableError('Invalid user ID');
    return JSON.stringify(value);
  }
  if (typeof value !== 'string') throw new JsonableError(`${field.name} is not a string`);
  if (field.type === FIELD_TYPE.SHORT_TEXT && [...value].length > 50)
    throw new JsonableError(`${field.name} is too long (limit: 50 characters)`);
  if (field.type === FIELD_TYPE.SELECT) {
    if (!Object.hasOwn(selectChoices(field.field_data), value))
      throw new JsonableError(`'${value}' is not a valid choice for '${field.name}'.`);
  }
  if (field.type === FIELD_TYPE.URL && !isWebUrl(value))
    throw new JsonableError(`${field.name} is not a URL`);
  if (field.type === FIELD_TYPE.DATE && !/^\d{4}-\d{2}-\d{2}$/.test(value))
    throw new JsonableError(`${field.name} is not a date`);
  return value;
}

async function fieldFor(
  db: Sequelize,
  realmId: number,
  id: number,
  actor: User,
  target: User,
): Promise<ProfileField> {
  const field = await one<ProfileField>(
    db,
    'SELECT * FROM chat.custom_profile_fields WHERE realm_id = :realmId AND id = :id',
    {
      realmId,
      id,
    },
  );
  if (!field) throw new JsonableError(`Field id ${id} not found.`);
  // Administrators edit anyone's fields; users only their own, and only editable ones.
  if (!isAdmin(actor) && (actor.id !== target.id || !field.editable_by_user)) {
    throw new JsonableError(
      'You are not allowed to change this field. Contact an administrator to update it.',
    );
  }
  return field;
}

/** Sets (or with null, removes) values; every change is announced to the organization. */
export async function updateProfileData(
  db: Sequelize,
  actor: User,
  target: User,
  changes: { id: number; value: ProfileValue }[],
  t: Transaction,
): Promise<void> {
  for (const change of changes) {
    const field = await fieldFor(db, target.realm_id, change.id, actor, target);
    const isEmpty =
      change.value === null ||
      change.value === '' ||
      (Array.isArray(change.value) && change.value.length === 0);
    const stored = isEmpty ? null : await storedValue(db, field, change.value as Exclude<ProfileValue, null>);
    if (stored === null) {
      await exec(
        db,
        'DELETE FROM chat.custom_profile_values WHERE user_id = :u AND field_id = :f',
        { u: target.id, f: field.id },
        t,
      );
    } else {
      await exec(
        db,
        `INSERT INTO chat.custom_profile_values (user_id, field_id, value) VALUES (:u, :f, :value)
         ON CONFLICT (user_id, field_id) DO UPDATE SET value = EXCLUDED.value`,
        { u: target.id, f: field.id, value: stored },
        t,
      );
    }
    const custom = {
      id: field.id,
      ...(stored === null ? { value: null } : profileEntry(field.type, stored)),
    };
    await sendEvent(db, t, await activeUserIds(db, target.realm_id, t), {
      type: 'realm_user',
      op: 'update',
      person: { user_id: target.id, custom_profile_field: custom },
    });
  }
}

export async function removeProfileData(db: Sequelize, user: User, fieldIds: number[]): Promise<void> {
  await transact(db, (t) =>
    updateProfileData(
      db,
      user,
      user,
      fieldIds.map((id) => ({ id, value: null })),
      t,
    ),
  );
}

/** An http(s) URL that parses, without quotes, angle brackets or spaces (clients put it in markup). */
function isWebUrl(value: string): boolean {
  if (!/^https?:\/\/[^\s"'<>`\\]+$/i.test(value) || !URL.canParse(value)) return false;
  return new URL(value).hostname !== '';
}
