import type { Actor } from './context.ts';
import { alertWords } from './alert-words.ts';
import { listDrafts } from './drafts.ts';
import {
  MAX_MESSAGE_LENGTH,
  MAX_STREAM_DESCRIPTION_LENGTH,
  MAX_STREAM_NAME_LENGTH,
  MAX_TOPIC_LENGTH,
  ZULIP_FEATURE_LEVEL,
  ZULIP_MERGE_BASE,
  ZULIP_VERSION,
} from './limits.ts';
import { listProfileFields } from './profile-fields.ts';
import { realmUrl } from './realms.ts';
import { maxMessageId } from './messages.ts';
import { listSnippets } from './saved-snippets.ts';
import { listScheduledMessages } from './scheduled-messages.ts';
import { defaultStreams, listSubscriptions } from './streams.ts';
import { listGroups } from './user-groups.ts';
import {
  apiEmail,
  formatUser,
  gravatarUrl,
  isAdmin,
  isGuest,
  isOwner,
  profileValues,
  usersInRealm,
} from './users.ts';

/**
 * The state part of POST /register, for the requested event types (all of them when null).
 * Only keys of the state this server keeps are sent; a client treats missing ones as unsupported.
 */
export async function fetchInitialState(
  actor: Actor,
  options: {
    types: string[] | null;
    clientGravatar: boolean;
    includeSubscribers: boolean;
    /** Zulip's `include_deactivated_groups` client capability. */
    includeDeactivatedGroups: boolean;
    /** The request's scheme, for the organization URL. */
    protocol: string;
  },
): Promise<Record<string, unknown>> {
  const { db, realm, user, config } = actor;
  const wants = (type: string) => options.types === null || options.types.includes(type);
  const state: Record<string, unknown> = {
    zulip_feature_level: ZULIP_FEATURE_LEVEL,
    zulip_version: ZULIP_VERSION,
    zulip_merge_base: ZULIP_MERGE_BASE,
  };
  if (wants('alert_words')) state.alert_words = await alertWords(db, user.id);
  if (wants('drafts')) state.drafts = await listDrafts(db, user.id);
  if (wants('saved_snippets')) state.saved_snippets = await listSnippets(db, user.id);
  if (wants('scheduled_messages')) state.scheduled_messages = await listScheduledMessages(db, user.id);
  if (wants('custom_profile_fields')) state.custom_profile_fields = await listProfileFields(db, realm.id);
  if (wants('message')) {
    state.max_message_id = await maxMessageId(db, user.id);
  }
  if (wants('subscription')) {
    state.subscriptions = await listSubscriptions(db, user, options.includeSubscribers);
    state.unsubscribed = [];
    state.never_subscribed = [];
  }
  if (wants('realm_user')) {
    const users = await usersInRealm(db, realm.id);
    const profiles = await profileValues(
      db,
      users.map((u) => u.id),
    );
    const format = (u: (typeof users)[number]) =>
      formatUser(u, user, realm, config, {
        clientGravatar: options.clientGravatar,
        profile: profiles.get(u.id) ?? new Map(),
      });
    state.realm_users = users.filter((u) => u.is_active).map(format);
    state.realm_non_active_users = users.filter((u) => !u.is_active).map(format);
    state.cross_realm_bots = [];
    Object.assign(state, {
      user_id: user.id,
      email: apiEmail(user, realm, config),
      delivery_email: user.delivery_email,
      full_name: user.full_name,
      is_admin: isAdmin(user),
      is_owner: isOwner(user),
      is_moderator: user.role === 300,
      is_guest: isGuest(user),
      avatar_source: 'G',
      avatar_url: gravatarUrl(user, user.delivery_email),
      avatar_url_medium: gravatarUrl(user, user.delivery_email),
    });
  }
  if (wants('user_group'))
    state.realm_user_groups = await listGroups(db, realm.id, {
      includeDeactivated: options.includeDeactivatedGroups,
    });
  if (wants('default_streams'))
    state.realm_default_streams = (await defaultStreams(db, realm.id)).map((s) => s.id);
  if (wants('video_calls')) {
    // Zulip's name and the spec's: the same fact, whether Zoom calls need the OAuth step first.
    state.has_zoom_token = user.zoom_token !== null;
    state.has_videocall_token = user.zoom_token !== null;
  }
  if (wants('realm')) {
    const url = realmUrl(realm, config, options.protocol);
    Object.assign(state, {
      realm_name: realm.name,
      realm_description: realm.description,
      realm_uri: url,
      realm_url: url,
      realm_date_created: Math.floor(realm.date_created.getTime() / 1000),
      realm_enable_spectator_access: realm.enable_spectator_access,
      realm_new_stream_announcements_stream_id: realm.new_stream_announcements_stream_id ?? -1,
      realm_video_chat_provider: realm.video_chat_provider,
      realm_message_retention_days: realm.message_retention_days ?? -1,
      server_web_public_streams_enabled: config.MUSE_CHAT_WEB_PUBLIC_STREAMS,
      max_stream_name_length: MAX_STREAM_NAME_LENGTH,
      max_stream_description_length: MAX_STREAM_DESCRIPTION_LENGTH,
      max_topic_length: MAX_TOPIC_LENGTH,
      max_message_length: MAX_MESSAGE_LENGTH,
      server_timestamp: Date.now() / 1000,
    });
  }
  return state;
}
