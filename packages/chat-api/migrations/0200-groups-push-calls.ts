import type { MigrationContext } from '@muse/core';

/**
 * User groups gain Zulip's permission settings, creator and deactivation; mobile push devices;
 * the organization's video-call provider and each user's Zoom OAuth token.
 * System groups' settings are filled as Zulip fills them: nobody may change them, everyone may
 * mention them.
 */
export async function up({ sequelize, schema }: MigrationContext): Promise<void> {
  const s = `"${schema}"`;
  await sequelize.query(`
    ALTER TABLE ${s}.user_groups
      ADD COLUMN date_created timestamptz,
      ADD COLUMN creator_id integer REFERENCES ${s}.users(id),
      ADD COLUMN deactivated boolean NOT NULL DEFAULT false,
      ADD COLUMN can_add_members_group jsonb,
      ADD COLUMN can_join_group jsonb,
      ADD COLUMN can_leave_group jsonb,
      ADD COLUMN can_manage_group jsonb,
      ADD COLUMN can_mention_group jsonb,
      ADD COLUMN can_remove_members_group jsonb;
    UPDATE ${s}.user_groups g SET
      can_add_members_group = to_jsonb(n.id), can_join_group = to_jsonb(n.id),
      can_leave_group = to_jsonb(n.id), can_manage_group = to_jsonb(n.id),
      can_remove_members_group = to_jsonb(n.id), can_mention_group = to_jsonb(e.id)
    FROM ${s}.user_groups n, ${s}.user_groups e
    WHERE g.is_system_group AND n.realm_id = g.realm_id AND n.name = 'role:nobody'
      AND e.realm_id = g.realm_id AND e.name = 'role:everyone';
    CREATE TABLE ${s}.push_devices (
      id serial PRIMARY KEY,
      user_id integer NOT NULL REFERENCES ${s}.users(id),
      kind text NOT NULL CHECK (kind IN ('apns', 'fcm')),
      token text NOT NULL,
      ios_app_id text,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (user_id, kind, token)
    );
    ALTER TABLE ${s}.realms ADD COLUMN video_chat_provider integer NOT NULL DEFAULT 1;
    ALTER TABLE ${s}.users ADD COLUMN zoom_token jsonb;
  `);
}
