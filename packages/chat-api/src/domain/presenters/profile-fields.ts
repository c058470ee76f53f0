import type { Sequelize } from '@muse/core';
import { rows, type Transaction } from '@muse/core';

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

/** The organization's fields; inside a writing transaction pass it, so its own changes are listed. */
export async function listProfileFields(
  db: Sequelize,
  realmId: number,
  t?: Transaction,
): Promise<Record<string, unknown>[]> {
  const fields = await rows<ProfileField>(
    db,
    'SELECT * FROM chat.custom_profile_fields WHERE realm_id = :realmId ORDER BY "order", id',
    { realmId },
    t,
  );
  return fields.map(({ realm_id: _realm, ...field }) => field);
}
