import type { User } from './users.ts';

/**
 * A user's personal settings, as Zulip's `user_settings` reports them: Zulip's defaults, with what
 * the user changed (`PATCH /settings`) kept in `users.settings`. Timezone and email visibility
 * live in their own columns.
 */
export const SETTING_DEFAULTS = {
  twenty_four_hour_time: false,
  web_mark_read_on_scroll_policy: 1,
  web_channel_default_view: 1,
  starred_message_counts: true,
  receives_typing_notifications: true,
  web_suggest_update_timezone: true,
  fluid_layout_width: false,
  high_contrast_mode: false,
  web_font_size_px: 16,
  web_line_height_percent: 140,
  color_scheme: 1,
  translate_emoticons: false,
  display_emoji_reaction_users: true,
  default_language: 'en',
  web_home_view: 'inbox',
  web_escape_navigates_to_home_view: true,
  left_side_userlist: false,
  emojiset: 'google',
  demote_inactive_streams: 1,
  user_list_style: 2,
  web_animate_image_previews: 'on_hover',
  web_stream_unreads_count_display_policy: 2,
  hide_ai_features: false,
  enter_sends: false,
  enable_drafts_synchronization: true,
  enable_stream_desktop_notifications: false,
  enable_stream_email_notifications: false,
  enable_stream_push_notifications: false,
  enable_stream_audible_notifications: false,
  notification_sound: 'zulip',
  enable_desktop_notifications: true,
  enable_sounds: true,
  enable_followed_topic_desktop_notifications: true,
  enable_followed_topic_email_notifications: true,
  enable_followed_topic_push_notifications: true,
  enable_followed_topic_audible_notifications: true,
  email_notifications_batching_period_seconds: 120,
  enable_offline_email_notifications: true,
  enable_offline_push_notifications: true,
  enable_online_push_notifications: true,
  enable_digest_emails: true,
  enable_marketing_emails: true,
  enable_login_emails: true,
  message_content_in_email_notifications: true,
  pm_content_in_desktop_notifications: true,
  wildcard_mentions_notify: true,
  enable_followed_topic_wildcard_mentions_notify: true,
  desktop_icon_count_display: 1,
  realm_name_in_email_notifications_policy: 1,
  automatically_follow_topics_policy: 3,
  automatically_unmute_topics_in_muted_streams_policy: 2,
  automatically_follow_topics_where_mentioned: true,
  presence_enabled: true,
  send_private_typing_notifications: true,
  send_stream_typing_notifications: true,
  send_read_receipts: true,
  allow_private_data_export: false,
  web_navigate_to_sent_message: true,
} as const;

export type SettingName = keyof typeof SETTING_DEFAULTS;
export type SettingValue = boolean | number | string;

/** Integer settings and the values Zulip accepts for them. */
export const SETTING_CHOICES: Partial<Record<SettingName, readonly SettingValue[]>> = {
  web_mark_read_on_scroll_policy: [1, 2, 3],
  web_channel_default_view: [1, 2, 3, 4],
  color_scheme: [1, 2, 3],
  demote_inactive_streams: [1, 2, 3],
  user_list_style: [1, 2, 3],
  web_animate_image_previews: ['always', 'on_hover', 'never'],
  web_stream_unreads_count_display_policy: [1, 2, 3],
  web_home_view: ['recent_topics', 'inbox', 'all_messages'],
  emojiset: ['google', 'twitter', 'text'],
  notification_sound: ['zulip', 'ding', 'none'],
  desktop_icon_count_display: [1, 2, 3, 4],
  realm_name_in_email_notifications_policy: [1, 2, 3],
  automatically_follow_topics_policy: [1, 2, 3, 4],
  automatically_unmute_topics_in_muted_streams_policy: [1, 2, 3, 4],
};

export const NOTIFICATION_SOUNDS = ['ding', 'zulip'];
export const EMOJISET_CHOICES = [
  { key: 'google', text: 'Google' },
  { key: 'twitter', text: 'Twitter' },
  { key: 'text', text: 'Plain text' },
];

/**
 * Zulip's legacy groupings, still read by older clients (zulip-terminal): the display settings
 * and notification settings at the top level of `/register`, each with its own event type.
 */
export const DISPLAY_SETTINGS: readonly SettingName[] = [
  'color_scheme',
  'default_language',
  'demote_inactive_streams',
  'emojiset',
  'enable_drafts_synchronization',
  'fluid_layout_width',
  'web_home_view',
  'high_contrast_mode',
  'left_side_userlist',
  'starred_message_counts',
  'translate_emoticons',
  'twenty_four_hour_time',
  'enter_sends',
];
export const NOTIFICATION_SETTINGS: readonly SettingName[] = [
  'enable_desktop_notifications',
  'enable_digest_emails',
  'enable_login_emails',
  'enable_marketing_emails',
  'email_notifications_batching_period_seconds',
  'enable_offline_email_notifications',
  'enable_offline_push_notifications',
  'enable_online_push_notifications',
  'enable_sounds',
  'enable_stream_desktop_notifications',
  'enable_stream_email_notifications',
  'enable_stream_push_notifications',
  'enable_stream_audible_notifications',
  'wildcard_mentions_notify',
  'message_content_in_email_notifications',
  'notification_sound',
  'pm_content_in_desktop_notifications',
  'desktop_icon_count_display',
  'realm_name_in_email_notifications_policy',
  'presence_enabled',
];

/** The user's value of every setting: what they chose, else Zulip's default. */
export function userSettings(user: Pick<User, 'settings'>): Record<SettingName, SettingValue> {
  return { ...SETTING_DEFAULTS, ...(user.settings ?? {}) } as Record<SettingName, SettingValue>;
}

/** The `user_settings` object of `/register`. */
export function userSettingsState(user: User): Record<string, unknown> {
  return {
    ...userSettings(user),
    timezone: user.timezone,
    email_address_visibility: user.email_address_visibility,
    available_notification_sounds: NOTIFICATION_SOUNDS,
    emojiset_choices: EMOJISET_CHOICES,
  };
}
