import type { Sequelize } from '@muse/core';
import { rows } from '../sql.ts';

export interface ProfileField {
  id: number;
  realm_id: number;
  name: string;
  hint: string;
  type: number;
  field_data: string;
  order: number;
  display_in_profile_summary: boolean;
  required: boolean;
  editable_by_user: boolean;
}

export async function listProfileFields(db: Sequelize, realmId: number): Promise<Record<string, unknown>[]> {
  const fields = await rows<ProfileField>(
    db,
    'SELECT * FROM chat.custom_profile_fields WHERE realm_id = :realmId ORDER BY "order", id',
    {
      realmId,
    },
  );
  return fields.map(({ realm_id: _realm, ...field }) => field);
}
