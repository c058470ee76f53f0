import { updateSettings } from '../domain/actions/settings.ts';
import { legacyMuteTopic, setTopicVisibility } from '../domain/actions/user-topics.ts';
import {
  NOTIFICATION_SETTINGS,
  SETTING_CHOICES,
  SETTING_DEFAULTS,
  type SettingName,
  type SettingValue,
} from '../domain/lib/user-settings.ts';
import { streamByName } from '../domain/lib/streams.ts';
import { endpoint } from '../http/endpoint.ts';
import { JsonableError } from '../http/errors.ts';
import { p, type Param } from '../http/params.ts';

/** One optional parameter per personal setting, typed by its default. */
const settingParams = Object.fromEntries(
  (Object.entries(SETTING_DEFAULTS) as [SettingName, SettingValue][]).map(([name, fallback]) => {
    const choices = SETTING_CHOICES[name];
    const param: Param<SettingValue> =
      typeof fallback === 'boolean'
        ? p.bool()
        : typeof fallback === 'number'
          ? p.int()
          : choices
            ? p.oneOf(choices as string[])
            : p.string({ maxLength: 50 });
    return [name, param.optional()];
  }),
) as Record<SettingName, Param<SettingValue | undefined>>;

/** Personal settings, per-topic visibility (mute, follow) and the organization's custom emoji. */
export const settingsEndpoints = [
  endpoint({
    method: 'patch',
    path: '/settings',
    operationId: 'updateSettings',
    summary: "Change the caller's personal settings (those /register's user_settings reports)",
    description:
      'Each change sends user_settings (op update), and update_display_settings or ' +
      'update_global_notifications for the settings Zulip grouped that way, to the caller’s queues.',
    params: settingParams,
    example: { params: { enter_sends: true, twenty_four_hour_time: true }, response: {} },
    view: async (params, actor) => {
      const changes = Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined));
      await updateSettings(actor, changes as Partial<Record<SettingName, SettingValue>>);
    },
  }),
  endpoint({
    method: 'patch',
    path: '/settings/notifications',
    operationId: 'updateNotificationSettings',
    summary: "Change the caller's notification settings (Zulip's legacy endpoint; see PATCH /settings)",
    description:
      'The notification settings of PATCH /settings, with the same events; any other name is ignored.',
    params: Object.fromEntries(NOTIFICATION_SETTINGS.map((name) => [name, settingParams[name]])) as Partial<
      typeof settingParams
    >,
    example: { params: { enable_desktop_notifications: false }, response: {} },
    view: async (params, actor) => {
      const changes = Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined));
      await updateSettings(actor, changes as Partial<Record<SettingName, SettingValue>>);
    },
  }),
  endpoint({
    method: 'post',
    path: '/user_topics',
    operationId: 'updateUserTopic',
    summary: "Set the caller's visibility policy of a topic: 0 inherit, 1 muted, 2 unmuted, 3 followed",
    description:
      "Topics are compared case-insensitively; 0 (inherit) removes the caller's policy. A muted " +
      "topic's messages leave the unread counts and match is:muted, a followed one's is:followed; " +
      'unmuted overrides a muted channel. The channel must be one the caller may see (400 "Invalid channel ' +
      'ID"); another policy is 400 "Invalid visibility_policy", a topic past 60 characters 400 ' +
      '"Topic too long". The caller\'s clients get user_topic, and muted_topics (the legacy list) ' +
      'for older clients.',
    params: { stream_id: p.int(), topic: p.string(), visibility_policy: p.int() },
    example: { params: { stream_id: 2, topic: 'launch plan', visibility_policy: 3 }, response: {} },
    view: async ({ stream_id, topic, visibility_policy }, actor) => {
      await setTopicVisibility(actor, stream_id, topic, visibility_policy);
    },
  }),
  endpoint({
    method: 'patch',
    path: '/users/me/subscriptions/muted_topics',
    operationId: 'muteTopic',
    summary: 'Mute or unmute a topic (legacy; see POST /user_topics)',
    description:
      "The channel by stream_id or by name (stream; 400 \"Please supply 'stream' or 'stream_id'.\" " +
      "without either, \"Channel '…' does not exist\" for an unknown name). op add sets the topic's " +
      'policy to muted, op remove back to inherit; muting a muted topic is 400 "Topic already ' +
      'muted", unmuting one that is not 400 "Topic is not muted". Events as POST /user_topics.',
    params: {
      stream_id: p.int().optional(),
      stream: p.string().optional(),
      topic: p.string(),
      op: p.oneOf(['add', 'remove'] as const),
    },
    example: { params: { stream: 'design', topic: 'logo', op: 'add' }, response: {} },
    view: async (params, actor) => {
      let streamId = params.stream_id;
      if (streamId === undefined) {
        if (params.stream === undefined) throw new JsonableError("Please supply 'stream' or 'stream_id'.");
        const found = await streamByName(actor.db, actor.realm.id, params.stream);
        if (!found) throw new JsonableError(`Channel '${params.stream}' does not exist`);
        streamId = found.id;
      }
      await legacyMuteTopic(actor, streamId, params.topic, params.op);
    },
  }),
  endpoint({
    method: 'get',
    path: '/realm/emoji',
    operationId: 'getCustomEmoji',
    summary: "The organization's custom emoji: none, since uploads are not served",
    description:
      'Always an empty object: this server stores no custom emoji (uploading them is not offered), ' +
      'so clients show only Unicode emoji and zulip. Kept so that clients that ask at start-up get ' +
      'an answer.',
    response: { required: ['emoji'], properties: { emoji: { type: 'object', additionalProperties: false } } },
    example: { response: { emoji: {} } },
    view: () => ({ emoji: {} }),
  }),
];
