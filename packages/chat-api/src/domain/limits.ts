/** What this server tells clients about itself; behaviour follows Zulip's feature level below. */
export const ZULIP_FEATURE_LEVEL = 420;
export const ZULIP_VERSION = '11.0-muse';
export const ZULIP_MERGE_BASE = '11.0';

export const MAX_STREAM_NAME_LENGTH = 60;
export const MAX_STREAM_DESCRIPTION_LENGTH = 1024;
export const MAX_MESSAGE_LENGTH = 10000;
export const MAX_TOPIC_LENGTH = 60;
export const MAX_ALERT_WORD_LENGTH = 100;
/** Muse's own bounds (Zulip sets none): they keep one request from holding a connection for long. */
export const MAX_ALERT_WORDS = 1000;
export const MAX_CHANNELS_PER_REQUEST = 100;
/** Channels × users of one (un)subscribe request. */
export const MAX_SUBSCRIPTION_CHANGES_PER_REQUEST = 1000;
export const MAX_FULL_NAME_LENGTH = 100;
export const MAX_DEACTIVATION_COMMENT_LENGTH = 2000;

export const ROLE = { OWNER: 100, ADMINISTRATOR: 200, MODERATOR: 300, MEMBER: 400, GUEST: 600 } as const;
export const ROLES: readonly number[] = Object.values(ROLE);

/** Email visibility values, per user, as Zulip numbers them. */
export const EMAIL_VISIBILITY = { EVERYONE: 1, MEMBERS: 2, ADMINS: 3, NOBODY: 4, MODERATORS: 5 } as const;

/** Field types as Zulip numbers them. */
export const FIELD_TYPE = {
  SHORT_TEXT: 1,
  LONG_TEXT: 2,
  SELECT: 3,
  DATE: 4,
  URL: 5,
  USER: 6,
  EXTERNAL_ACCOUNT: 7,
  PRONOUNS: 8,
};

/** What clients show for the empty topic (`realm_empty_topic_display_name`); sent as a topic, it is the empty topic. */
export const EMPTY_TOPIC_DISPLAY_NAME = 'general chat';
