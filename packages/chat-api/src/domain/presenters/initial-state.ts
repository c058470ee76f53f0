import type { Actor } from '../context.ts';
import { alertWords } from '../lib/alert-words.ts';
import { listDrafts } from './drafts.ts';
import { ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from '../limits.ts';
import { listProfileFields } from './profile-fields.ts';
import { systemGroupIds, type Origin } from '../lib/realms.ts';
import { realmPresence, formatPresences } from '../lib/presence.ts';
import { visibleStreams } from './streams.ts';
import {
  DISPLAY_SETTINGS,
  EMOJISET_CHOICES,
  NOTIFICATION_SETTINGS,
  NOTIFICATION_SOUNDS,
  userSettings,
  userSettingsState,
} from '../lib/user-settings.ts';
import { formatUserTopic, legacyMutedTopics, userTopics } from '../lib/user-topics.ts';
import { starredMessageIds, unreadMessages } from '../lib/unread.ts';
import { realmState } from './realm-state.ts';
import { maxMessageId } from '../lib/messages.ts';
import { listSnippets } from './saved-snippets.ts';
import { listScheduledMessages } from './scheduled-messages.ts';
import { defaultStreams } from '../lib/streams.ts';
import { listSubscriptions } from './streams.ts';
import { listGroups } from './user-groups.ts';
import { apiEmail, avatarUrl, isAdmin, isGuest, isOwner, profileValues, usersInRealm } from '../lib/users.ts';
import { formatUser } from './users.ts';
import { administeredBots, servicesOf } from '../lib/bots.ts';
import { formatBot } from './bots.ts';
import { realmStatuses } from '../lib/user-status.ts';
import { mutedUsers } from '../lib/muted-users.ts';
import { realmLinkifiers } from '../lib/linkifiers.ts';

/**
 * The state part of POST /register, for the requested event types (all of them when null): for
 * each, every key Zulip documents, with real values where Muse keeps the data and the values
 * Muse applies (Zulip's defaults) elsewhere.
 */
export async function fetchInitialState(
  actor: Actor,
  options: {
    types: string[] | null;
    clientGravatar: boolean;
    includeSubscribers: boolean;
    /** Zulip's `include_deactivated_groups` client capability. */
    includeDeactivatedGroups: boolean;
    /** Where the request came in, for the organization URL. */
    origin: Origin;
    /** Presence by user id (Zulip's modern format) rather than by email. */
    slimPresence: boolean;
    presenceHistoryDays: number | undefined;
    /** Whether the server has a push sender. */
    pushEnabled: boolean;
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
  if (wants('message')) state.max_message_id = await maxMessageId(db, user.id);
  if (wants('message') && wants('update_message_flags'))
    state.unread_msgs = await unreadMessages(db, user.id);
  if (wants('starred_messages')) state.starred_messages = await starredMessageIds(db, user.id);
  if (wants('muted_topics') || wants('user_topic')) {
    const topics = await userTopics(db, user.id);
    if (wants('muted_topics')) state.muted_topics = legacyMutedTopics(topics);
    if (wants('user_topic')) state.user_topics = topics.map(formatUserTopic);
  }
  if (wants('presence')) {
    const found = await realmPresence(db, realm.id, { historyDays: options.presenceHistoryDays });
    const users = new Map((await usersInRealm(db, realm.id)).map((u) => [u.id, u]));
    state.presences = formatPresences(found.rows, options.slimPresence, users, realm, config);
    state.presence_last_update_id = found.lastUpdateId;
    state.server_timestamp = Date.now() / 1000;
  }
  // Custom emoji need uploads, which Muse does not serve: every organization has none.
  if (wants('realm_emoji')) state.realm_emoji = {};
  if (wants('stream')) state.streams = await visibleStreams(actor, {});
  const settings = userSettings(user);
  if (wants('user_settings')) state.user_settings = userSettingsState(user);
  if (wants('update_display_settings')) {
    for (const name of DISPLAY_SETTINGS) state[name] = settings[name];
    Object.assign(state, { timezone: user.timezone, emojiset_choices: EMOJISET_CHOICES });
  }
  if (wants('update_global_notifications')) {
    for (const name of NOTIFICATION_SETTINGS) state[name] = settings[name];
    state.available_notification_sounds = NOTIFICATION_SOUNDS;
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
      avatar_url: avatarUrl(user, user.delivery_email),
      avatar_url_medium: avatarUrl(user, user.delivery_email),
      // What Muse lets the caller do (guests create no channels and subscribe nobody else).
      can_create_streams: !isGuest(user),
      can_create_public_streams: !isGuest(user),
      can_create_private_streams: !isGuest(user),
      can_create_web_public_streams: isAdmin(user) && config.MUSE_CHAT_WEB_PUBLIC_STREAMS,
      can_subscribe_other_users: !isGuest(user),
      can_invite_others_to_realm: false,
    });
  }
  // Zulip's name is `realm_user_groups`; `user_group` is the event type Muse always accepted.
  if (wants('realm_user_groups') || wants('user_group'))
    state.realm_user_groups = await listGroups(db, realm.id, {
      includeDeactivated: options.includeDeactivatedGroups,
    });
  if (wants('realm_bot')) {
    const bots = await administeredBots(actor);
    const services = await servicesOf(
      db,
      bots.map((b) => b.id),
    );
    state.realm_bots = bots.map((bot) => formatBot(bot, services.get(bot.id), realm, config));
  }
  if (wants('user_status')) state.user_status = await realmStatuses(db, realm.id);
  if (wants('muted_users')) state.muted_users = await mutedUsers(db, user.id);
  if (wants('realm_linkifiers')) state.realm_linkifiers = await realmLinkifiers(db, realm.id);
  // Zulip's legacy `realm_filters`, empty since linkifiers took URL templates (feature level 176).
  if (wants('realm_filters')) state.realm_filters = [];
  if (wants('default_streams'))
    state.realm_default_streams = (await defaultStreams(db, realm.id)).map((s) => s.id);
  if (wants('video_calls')) {
    // Zulip's name and the spec's: the same fact, whether Zoom calls need the OAuth step first.
    state.has_zoom_token = user.zoom_token !== null;
    state.has_videocall_token = user.zoom_token !== null;
  }
  if (wants('realm'))
    Object.assign(
      state,
      realmState(realm, config, options.origin, await systemGroupIds(db, realm.id), {
        devEndpoints: config.MUSE_CHAT_DEV_ENDPOINTS && config.NODE_ENV !== 'production',
        pushEnabled: options.pushEnabled,
      }),
      { server_timestamp: Date.now() / 1000 },
    );
  return state;
}
