import type { Config } from '@muse/core';
import {
  EMPTY_TOPIC_DISPLAY_NAME,
  MAX_MESSAGE_LENGTH,
  MAX_STREAM_DESCRIPTION_LENGTH,
  MAX_STREAM_NAME_LENGTH,
  MAX_TOPIC_LENGTH,
} from '../limits.ts';
import { realmUrl, type Origin, type Realm, type SystemGroupName } from '../lib/realms.ts';
import {
  PRESENCE_OFFLINE_THRESHOLD_SECONDS,
  PRESENCE_PING_INTERVAL_SECONDS,
  GROUP_SETTING_DEFAULTS,
  REALM_GROUP_SETTINGS,
  REALM_POLICY,
  STREAM_SETTING_DEFAULTS,
  TYPING_STARTED_EXPIRY_MS,
  TYPING_STARTED_WAIT_MS,
  TYPING_STOPPED_WAIT_MS,
} from '../lib/realm-policy.ts';

/** Zulip's video providers by name, with the numbers `realm_video_chat_provider` uses. */
const VIDEO_PROVIDERS = {
  disabled: { name: 'None', id: 0 },
  jitsi_meet: { name: 'Jitsi Meet', id: 1 },
  zoom: { name: 'Zoom', id: 3 },
  big_blue_button: { name: 'BigBlueButton', id: 4 },
};

/**
 * The `realm` part of `/register`: every key Zulip documents for it, with the organization's
 * own values where Muse keeps them and the values Muse applies (Zulip's defaults) elsewhere.
 */
export function realmState(
  realm: Realm,
  config: Config,
  origin: Origin,
  groups: Record<SystemGroupName, number>,
  options: { devEndpoints: boolean; pushEnabled: boolean },
): Record<string, unknown> {
  const url = realmUrl(realm, config, origin);
  const retention = realm.message_retention_days ?? -1;
  const groupSettings = Object.fromEntries(
    Object.entries(REALM_GROUP_SETTINGS).map(([name, group]) => [`realm_${name}`, groups[group]]),
  );
  return {
    realm_name: realm.name,
    realm_description: realm.description,
    realm_uri: url,
    realm_url: url,
    realm_date_created: Math.floor(realm.date_created.getTime() / 1000),
    realm_enable_spectator_access: realm.enable_spectator_access,
    realm_new_stream_announcements_stream_id: realm.new_stream_announcements_stream_id ?? -1,
    realm_signup_announcements_stream_id: -1,
    realm_zulip_update_announcements_stream_id: -1,
    realm_moderation_request_channel_id: -1,
    realm_video_chat_provider: realm.video_chat_provider,
    realm_available_video_chat_providers: VIDEO_PROVIDERS,
    realm_jitsi_server_url: null,
    server_jitsi_server_url: config.MUSE_VIDEO_JITSI_URL ?? null,
    jitsi_server_url: config.MUSE_VIDEO_JITSI_URL ?? 'https://meet.jit.si',
    realm_message_retention_days: retention,
    realm_allow_message_editing: REALM_POLICY.allow_message_editing,
    realm_message_content_edit_limit_seconds: REALM_POLICY.message_content_edit_limit_seconds,
    realm_move_messages_within_stream_limit_seconds: REALM_POLICY.move_messages_within_stream_limit_seconds,
    realm_move_messages_between_streams_limit_seconds:
      REALM_POLICY.move_messages_between_streams_limit_seconds,
    realm_message_content_delete_limit_seconds: REALM_POLICY.message_content_delete_limit_seconds,
    realm_message_edit_history_visibility_policy: REALM_POLICY.message_edit_history_visibility_policy,
    realm_allow_edit_history: true,
    realm_mandatory_topics: REALM_POLICY.mandatory_topics,
    realm_presence_disabled: REALM_POLICY.presence_disabled,
    ...groupSettings,
    // Zulip's deprecated policy numbers for the same rules: members create channels (1),
    // administrators web-public ones (2); wildcard mentions by everyone (1).
    realm_create_public_stream_policy: 1,
    realm_create_private_stream_policy: 1,
    realm_create_web_public_stream_policy: 2,
    realm_wildcard_mention_policy: 1,
    realm_require_unique_names: false,
    realm_default_language: 'en',
    realm_digest_emails_enabled: false,
    realm_digest_weekday: 1,
    realm_disallow_disposable_email_addresses: true,
    realm_email_changes_disabled: false,
    realm_invite_required: true,
    realm_inline_image_preview: false,
    realm_inline_url_embed_preview: false,
    realm_name_changes_disabled: false,
    realm_avatar_changes_disabled: false,
    realm_emails_restricted_to_domains: false,
    realm_send_welcome_emails: false,
    realm_message_content_allowed_in_email_notifications: true,
    realm_want_advertise_in_communities_directory: false,
    realm_giphy_rating: 2,
    giphy_rating_options: {
      disabled: { name: 'GIPHY integration disabled', id: 0 },
      y: { name: 'Allow GIFs rated Y (Very young audience)', id: 1 },
      g: { name: 'Allow GIFs rated G (General audience)', id: 2 },
      pg: { name: 'Allow GIFs rated PG (Parental guidance)', id: 3 },
      'pg-13': { name: 'Allow GIFs rated PG-13 (Parental guidance - under 13)', id: 4 },
      r: { name: 'Allow GIFs rated R (Restricted)', id: 5 },
    },
    realm_waiting_period_threshold: 0,
    realm_default_code_block_language: '',
    realm_authentication_methods: {
      Email: { enabled: true, available: true },
      Dev: { enabled: options.devEndpoints, available: options.devEndpoints },
    },
    realm_email_auth_enabled: true,
    realm_password_auth_enabled: true,
    // GET /messages/{id}/read_receipts answers (each user's send_read_receipts applies).
    realm_enable_read_receipts: true,
    realm_icon_url: `${url}/static/images/logo/zulip-icon-128x128.png`,
    realm_icon_source: 'G',
    realm_logo_url: '',
    realm_logo_source: 'D',
    realm_night_logo_url: '',
    realm_night_logo_source: 'D',
    max_icon_file_size_mib: 5,
    max_logo_file_size_mib: 5,
    max_avatar_file_size_mib: 5,
    max_file_upload_size_mib: realm.max_file_upload_size_mib,
    realm_upload_quota_mib: 0,
    realm_bot_domain: new URL(url).hostname,
    settings_send_digest_emails: false,
    realm_is_zephyr_mirror_realm: false,
    realm_push_notifications_enabled: options.pushEnabled,
    realm_push_notifications_enabled_end_timestamp: null,
    realm_org_type: 0,
    realm_plan_type: 1,
    zulip_plan_is_not_limited: true,
    upgrade_text_for_wide_organization_logo: '',
    realm_enable_guest_user_dm_warning: true,
    realm_enable_guest_user_indicator: true,
    realm_default_external_accounts: {},
    realm_empty_topic_display_name: EMPTY_TOPIC_DISPLAY_NAME,
    development_environment: config.NODE_ENV === 'development',
    server_generation: SERVER_GENERATION,
    password_min_length: 6,
    password_max_length: 100,
    password_min_guesses: 10000,
    server_inline_image_preview: false,
    server_inline_url_embed_preview: false,
    server_avatar_changes_disabled: true,
    server_name_changes_disabled: false,
    server_needs_upgrade: false,
    server_web_public_streams_enabled: config.MUSE_CHAT_WEB_PUBLIC_STREAMS,
    server_emoji_data_url: `${url}/static/generated/emoji/emoji_api.json`,
    server_can_summarize_topics: false,
    server_min_deactivated_realm_deletion_days: null,
    server_max_deactivated_realm_deletion_days: null,
    server_thumbnail_formats: [],
    event_queue_longpoll_timeout_seconds: Math.ceil(config.MUSE_CHAT_HEARTBEAT_MS / 1000) + 30,
    server_presence_ping_interval_seconds: PRESENCE_PING_INTERVAL_SECONDS,
    server_presence_offline_threshold_seconds: PRESENCE_OFFLINE_THRESHOLD_SECONDS,
    server_typing_started_expiry_period_milliseconds: TYPING_STARTED_EXPIRY_MS,
    server_typing_stopped_wait_period_milliseconds: TYPING_STOPPED_WAIT_MS,
    server_typing_started_wait_period_milliseconds: TYPING_STARTED_WAIT_MS,
    server_supported_permission_settings: {
      realm: permissionSettings(REALM_GROUP_SETTINGS),
      stream: permissionSettings(STREAM_SETTING_DEFAULTS),
      group: permissionSettings(GROUP_SETTING_DEFAULTS),
    },
    max_stream_name_length: MAX_STREAM_NAME_LENGTH,
    max_stream_description_length: MAX_STREAM_DESCRIPTION_LENGTH,
    max_topic_length: MAX_TOPIC_LENGTH,
    max_message_length: MAX_MESSAGE_LENGTH,
  };
}

/** Zulip's description of permission settings: any group or set of users may hold them (Muse checks only that they exist). */
function permissionSettings(defaults: Record<string, string>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(defaults).map(([name, group]) => [
      name,
      {
        require_system_group: false,
        allow_internet_group: false,
        allow_nobody_group: true,
        allow_everyone_group: true,
        default_group_name: group,
        default_for_system_groups: null,
        allowed_system_groups: [],
      },
    ]),
  );
}

/** When this server process started (ms): Zulip's `server_generation`, which tells clients to reload after an upgrade. */
const SERVER_GENERATION = Date.now();
