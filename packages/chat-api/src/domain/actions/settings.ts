import { JsonableError } from '../errors.ts';
import type { Actor } from '../context.ts';
import { sendEvent } from '../lib/events/log.ts';
import {
  DISPLAY_SETTINGS,
  NOTIFICATION_SETTINGS,
  SETTING_CHOICES,
  SETTING_DEFAULTS,
  type SettingName,
  type SettingValue,
} from '../lib/user-settings.ts';
import { exec, transact } from '@muse/core';

/**
 * `PATCH /settings` for the personal settings `/register` reports: each changed value is kept
 * and announced with `user_settings` (and Zulip's legacy display/notification event to queues
 * that asked for those types).
 */
export async function updateSettings(
  actor: Actor,
  changes: Partial<Record<SettingName, SettingValue>>,
): Promise<void> {
  const { db, user } = actor;
  for (const [name, value] of Object.entries(changes) as [SettingName, SettingValue][]) {
    if (typeof value !== typeof SETTING_DEFAULTS[name]) throw new JsonableError(`Invalid ${name}`);
    const choices = SETTING_CHOICES[name];
    if (choices && !choices.includes(value)) throw new JsonableError(`Invalid ${name}`);
  }
  const entries = Object.entries(changes) as [SettingName, SettingValue][];
  if (entries.length === 0) return;
  await transact(db, async (t) => {
    await exec(
      db,
      'UPDATE chat.users SET settings = settings || CAST(:changes AS jsonb) WHERE id = :id',
      {
        changes: JSON.stringify(changes),
        id: user.id,
      },
      t,
    );
    for (const [name, value] of entries) {
      await sendEvent(db, t, [user.id], { type: 'user_settings', op: 'update', property: name, value });
      if (DISPLAY_SETTINGS.includes(name))
        await sendEvent(db, t, [user.id], {
          type: 'update_display_settings',
          user: user.id,
          setting_name: name,
          setting: value,
        });
      if (NOTIFICATION_SETTINGS.includes(name))
        await sendEvent(db, t, [user.id], {
          type: 'update_global_notifications',
          user: user.id,
          notification_name: name,
          setting: value,
        });
    }
  });
}
