import type { SystemGroupName } from './realms.ts';

/**
 * The organization policies Muse applies, with Zulip's defaults (`PATCH /realm` does not change
 * these, so every organization has them). Rules (message editing, moving, deleting) read them here,
 * and `/register` reports them, so what clients are told is what the server does.
 */
export const REALM_POLICY = {
  allow_message_editing: true,
  /** Seconds after sending in which the sender may edit the content; null: no limit. */
  message_content_edit_limit_seconds: 600 as number | null,
  /** Seconds in which a message may be moved to another topic; null: no limit. */
  move_messages_within_stream_limit_seconds: 604800 as number | null,
  move_messages_between_streams_limit_seconds: 604800 as number | null,
  /** Seconds after sending in which the sender may delete; null: no limit. */
  message_content_delete_limit_seconds: null as number | null,
  message_edit_history_visibility_policy: 'all',
  mandatory_topics: false,
  presence_disabled: false,
} as const;

/** The system group of each organization permission (Zulip's defaults; channel creation as Muse checks it). */
export const REALM_GROUP_SETTINGS: Record<string, SystemGroupName> = {
  can_add_custom_emoji_group: 'role:members',
  can_add_subscribers_group: 'role:members',
  can_delete_any_message_group: 'role:administrators',
  can_delete_own_message_group: 'role:everyone',
  can_invite_users_group: 'role:members',
  can_mention_many_users_group: 'role:administrators',
  can_move_messages_between_channels_group: 'role:members',
  can_move_messages_between_topics_group: 'role:everyone',
  can_create_groups: 'role:members',
  can_create_bots_group: 'role:members',
  can_create_write_only_bots_group: 'role:members',
  can_manage_all_groups: 'role:owners',
  can_manage_billing_group: 'role:administrators',
  can_create_public_channel_group: 'role:members',
  can_create_private_channel_group: 'role:members',
  can_create_web_public_channel_group: 'role:administrators',
  can_resolve_topics_group: 'role:everyone',
  create_multiuse_invite_group: 'role:administrators',
  direct_message_initiator_group: 'role:everyone',
  direct_message_permission_group: 'role:everyone',
  can_access_all_users_group: 'role:everyone',
  can_summarize_topics_group: 'role:everyone',
};

/** How often clients should report presence, and when a user counts as offline (Zulip's values). */
export const PRESENCE_PING_INTERVAL_SECONDS = 60;
export const PRESENCE_OFFLINE_THRESHOLD_SECONDS = 140;

/** Typing notification timing (Zulip's values), in milliseconds. */
export const TYPING_STARTED_EXPIRY_MS = 45000;
export const TYPING_STOPPED_WAIT_MS = 5000;
export const TYPING_STARTED_WAIT_MS = 10000;

/** The default of each channel permission as `createStream` sets it (`channel_creator`: the creator alone). */
export const STREAM_SETTING_DEFAULTS: Record<string, string> = {
  can_add_subscribers_group: 'role:nobody',
  can_remove_subscribers_group: 'role:administrators',
  can_administer_channel_group: 'channel_creator',
  can_delete_any_message_group: 'role:administrators',
  can_delete_own_message_group: 'role:everyone',
  can_send_message_group: 'role:everyone',
  can_subscribe_group: 'role:nobody',
};

/** The default of each user-group permission as `createGroup` sets it (`group_creator`: the creator alone). */
export const GROUP_SETTING_DEFAULTS: Record<string, string> = {
  can_add_members_group: 'group_creator',
  can_join_group: 'role:nobody',
  can_leave_group: 'role:everyone',
  can_manage_group: 'group_creator',
  can_mention_group: 'role:everyone',
  can_remove_members_group: 'role:nobody',
};
