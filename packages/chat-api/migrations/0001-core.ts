import type { MigrationContext } from '@muse/core';

/**
 * The messaging core: organizations, users, groups, channels, subscriptions, messages,
 * custom profile fields, alert words, event queues and rate-limit counters.
 * Group-setting values are stored as JSON (a group id or {direct_members, direct_subgroups}),
 * the shape the API exchanges, so they round-trip without translation.
 */
export async function up({ sequelize, schema }: MigrationContext): Promise<void> {
  const s = `"${schema}"`;
  await sequelize.query(`
    CREATE TABLE ${s}.realms (
      id serial PRIMARY KEY,
      string_id text NOT NULL UNIQUE,
      name text NOT NULL,
      description text NOT NULL DEFAULT '',
      date_created timestamptz NOT NULL DEFAULT now(),
      deactivated boolean NOT NULL DEFAULT false,
      email_address_visibility integer NOT NULL DEFAULT 1,
      topics_policy text NOT NULL DEFAULT 'allow_empty_topic',
      message_retention_days integer,
      enable_spectator_access boolean NOT NULL DEFAULT false,
      notification_bot_id integer,
      new_stream_announcements_stream_id integer
    );
    CREATE TABLE ${s}.users (
      id serial PRIMARY KEY,
      realm_id integer NOT NULL REFERENCES ${s}.realms(id),
      delivery_email text NOT NULL,
      full_name text NOT NULL,
      password_hash text,
      api_key text NOT NULL UNIQUE,
      role integer NOT NULL DEFAULT 400,
      is_active boolean NOT NULL DEFAULT true,
      is_bot boolean NOT NULL DEFAULT false,
      bot_type integer,
      bot_owner_id integer REFERENCES ${s}.users(id),
      timezone text NOT NULL DEFAULT '',
      avatar_version integer NOT NULL DEFAULT 1,
      date_joined timestamptz NOT NULL DEFAULT now(),
      is_imported_stub boolean NOT NULL DEFAULT false,
      can_change_user_emails boolean NOT NULL DEFAULT false,
      email_address_visibility integer NOT NULL DEFAULT 1
    );
    CREATE UNIQUE INDEX users_realm_email ON ${s}.users (realm_id, lower(delivery_email));
    CREATE TABLE ${s}.user_groups (
      id serial PRIMARY KEY,
      realm_id integer NOT NULL REFERENCES ${s}.realms(id),
      name text NOT NULL,
      description text NOT NULL DEFAULT '',
      is_system_group boolean NOT NULL DEFAULT false,
      UNIQUE (realm_id, name)
    );
    CREATE TABLE ${s}.user_group_members (
      group_id integer NOT NULL REFERENCES ${s}.user_groups(id) ON DELETE CASCADE,
      user_id integer NOT NULL REFERENCES ${s}.users(id),
      PRIMARY KEY (group_id, user_id)
    );
    CREATE TABLE ${s}.user_group_subgroups (
      group_id integer NOT NULL REFERENCES ${s}.user_groups(id) ON DELETE CASCADE,
      subgroup_id integer NOT NULL REFERENCES ${s}.user_groups(id),
      PRIMARY KEY (group_id, subgroup_id)
    );
    CREATE TABLE ${s}.streams (
      id serial PRIMARY KEY,
      realm_id integer NOT NULL REFERENCES ${s}.realms(id),
      name text NOT NULL,
      description text NOT NULL DEFAULT '',
      date_created timestamptz NOT NULL DEFAULT now(),
      creator_id integer REFERENCES ${s}.users(id),
      invite_only boolean NOT NULL DEFAULT false,
      is_web_public boolean NOT NULL DEFAULT false,
      history_public_to_subscribers boolean NOT NULL DEFAULT true,
      message_retention_days integer,
      topics_policy text NOT NULL DEFAULT 'inherit',
      is_archived boolean NOT NULL DEFAULT false,
      is_default boolean NOT NULL DEFAULT false,
      can_add_subscribers_group jsonb NOT NULL,
      can_remove_subscribers_group jsonb NOT NULL,
      can_administer_channel_group jsonb NOT NULL,
      can_delete_any_message_group jsonb NOT NULL,
      can_delete_own_message_group jsonb NOT NULL,
      can_send_message_group jsonb NOT NULL,
      can_subscribe_group jsonb NOT NULL
    );
    CREATE UNIQUE INDEX streams_realm_name ON ${s}.streams (realm_id, lower(name));
    CREATE TABLE ${s}.subscriptions (
      user_id integer NOT NULL REFERENCES ${s}.users(id),
      stream_id integer NOT NULL REFERENCES ${s}.streams(id),
      active boolean NOT NULL DEFAULT true,
      color text NOT NULL,
      is_muted boolean NOT NULL DEFAULT false,
      pin_to_top boolean NOT NULL DEFAULT false,
      desktop_notifications boolean,
      audible_notifications boolean,
      push_notifications boolean,
      email_notifications boolean,
      wildcard_mentions_notify boolean,
      PRIMARY KEY (user_id, stream_id)
    );
    CREATE INDEX subscriptions_stream ON ${s}.subscriptions (stream_id) WHERE active;
    CREATE TABLE ${s}.messages (
      id bigserial PRIMARY KEY,
      realm_id integer NOT NULL REFERENCES ${s}.realms(id),
      sender_id integer NOT NULL REFERENCES ${s}.users(id),
      stream_id integer REFERENCES ${s}.streams(id),
      recipient_ids integer[],
      topic text NOT NULL DEFAULT '',
      content text NOT NULL,
      rendered_content text NOT NULL,
      client text NOT NULL DEFAULT 'API',
      date_sent timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE ${s}.user_messages (
      user_id integer NOT NULL REFERENCES ${s}.users(id),
      message_id bigint NOT NULL REFERENCES ${s}.messages(id) ON DELETE CASCADE,
      flags text[] NOT NULL DEFAULT '{}',
      PRIMARY KEY (user_id, message_id)
    );
    CREATE TABLE ${s}.custom_profile_fields (
      id serial PRIMARY KEY,
      realm_id integer NOT NULL REFERENCES ${s}.realms(id),
      name text NOT NULL,
      hint text NOT NULL DEFAULT '',
      type integer NOT NULL,
      field_data text NOT NULL DEFAULT '',
      "order" integer NOT NULL DEFAULT 0,
      display_in_profile_summary boolean NOT NULL DEFAULT false,
      required boolean NOT NULL DEFAULT false,
      editable_by_user boolean NOT NULL DEFAULT true
    );
    CREATE TABLE ${s}.custom_profile_values (
      user_id integer NOT NULL REFERENCES ${s}.users(id),
      field_id integer NOT NULL REFERENCES ${s}.custom_profile_fields(id) ON DELETE CASCADE,
      value text NOT NULL,
      PRIMARY KEY (user_id, field_id)
    );
    CREATE TABLE ${s}.alert_words (
      user_id integer NOT NULL REFERENCES ${s}.users(id),
      word text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp()
    );
    CREATE UNIQUE INDEX alert_words_user_word ON ${s}.alert_words (user_id, lower(word));
    CREATE TABLE ${s}.event_queues (
      id text PRIMARY KEY,
      user_id integer NOT NULL REFERENCES ${s}.users(id),
      event_types jsonb,
      client_gravatar boolean NOT NULL DEFAULT true,
      apply_markdown boolean NOT NULL DEFAULT true,
      all_public_streams boolean NOT NULL DEFAULT false,
      last_event_id integer NOT NULL DEFAULT -1,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_polled_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX event_queues_user ON ${s}.event_queues (user_id);
    CREATE TABLE ${s}.queue_events (
      queue_id text NOT NULL REFERENCES ${s}.event_queues(id) ON DELETE CASCADE,
      event_id integer NOT NULL,
      event jsonb NOT NULL,
      PRIMARY KEY (queue_id, event_id)
    );
    CREATE TABLE ${s}.rate_limits (
      key text PRIMARY KEY,
      window_start timestamptz NOT NULL,
      count integer NOT NULL
    );
  `);
}
