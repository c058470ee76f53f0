import {
  MAX_MESSAGE_LENGTH,
  MAX_STREAM_DESCRIPTION_LENGTH,
  MAX_STREAM_NAME_LENGTH,
  MAX_TOPIC_LENGTH,
  ZULIP_FEATURE_LEVEL,
  ZULIP_MERGE_BASE,
  ZULIP_VERSION,
} from '../domain/limits.ts';
import { realmUrl } from '../domain/lib/realms.ts';
import { requestRealm } from '../http/auth.ts';
import { endpoint } from '../http/endpoint.ts';

/** What every answer of `GET /server_settings` says alike, whoever asks and whichever server. */
const FIXED_SETTINGS = {
  external_authentication_methods: [],
  zulip_feature_level: ZULIP_FEATURE_LEVEL,
  zulip_version: ZULIP_VERSION,
  zulip_merge_base: ZULIP_MERGE_BASE,
  is_incompatible: false,
  email_auth_enabled: true,
  require_email_format_usernames: true,
  max_stream_name_length: MAX_STREAM_NAME_LENGTH,
  max_stream_description_length: MAX_STREAM_DESCRIPTION_LENGTH,
  max_message_length: MAX_MESSAGE_LENGTH,
  max_topic_length: MAX_TOPIC_LENGTH,
};

/** GET /server_settings: what a client reads before logging in. */
export const serverSettingsEndpoints = [
  endpoint({
    method: 'get',
    path: '/server_settings',
    operationId: 'getServerSettings',
    summary: 'Server version, feature level, authentication methods and length limits',
    description: "The realm_* fields are present when an organization is served at the request's host.",
    public: true,
    response: {
      required: [
        'authentication_methods',
        'external_authentication_methods',
        'zulip_feature_level',
        'zulip_version',
        'zulip_merge_base',
        'push_notifications_enabled',
        'is_incompatible',
        'email_auth_enabled',
        'require_email_format_usernames',
      ],
      properties: {
        authentication_methods: {
          type: 'object',
          required: ['password', 'dev'],
          properties: { password: { type: 'boolean' }, dev: { type: 'boolean' } },
          additionalProperties: { type: 'boolean' },
        },
        external_authentication_methods: { type: 'array', items: { type: 'object' } },
        zulip_feature_level: { type: 'integer' },
        zulip_version: { type: 'string' },
        zulip_merge_base: { type: 'string' },
        push_notifications_enabled: { type: 'boolean' },
        is_incompatible: { type: 'boolean' },
        email_auth_enabled: { type: 'boolean' },
        require_email_format_usernames: { type: 'boolean' },
        max_stream_name_length: { type: 'integer' },
        max_stream_description_length: { type: 'integer' },
        max_message_length: { type: 'integer' },
        max_topic_length: { type: 'integer' },
        realm_uri: { type: 'string', description: 'Old name of realm_url.' },
        realm_url: { type: 'string' },
        realm_name: { type: 'string' },
        realm_icon: { type: 'string' },
        realm_description: { type: 'string' },
        realm_web_public_access_enabled: { type: 'boolean' },
      },
    },
    example: {
      response: {
        authentication_methods: { password: true, dev: false },
        push_notifications_enabled: true,
        ...FIXED_SETTINGS,
        realm_uri: 'https://chat.example.com',
        realm_url: 'https://chat.example.com',
        realm_name: 'Example Design Co.',
        realm_icon: 'https://chat.example.com/static/images/logo/zulip-icon-128x128.png',
        realm_description: 'The design team of Example Co.',
        realm_web_public_access_enabled: false,
      },
    },
    view: async (_params, rt, req) => {
      const realm = await requestRealm(rt.db, rt.config, req.headers.host);
      const devEnabled = rt.config.MUSE_CHAT_DEV_ENDPOINTS && rt.config.NODE_ENV !== 'production';
      const settings: Record<string, unknown> = {
        authentication_methods: { password: true, dev: devEnabled },
        push_notifications_enabled: rt.push !== undefined,
        ...FIXED_SETTINGS,
      };
      if (realm) {
        const url = realmUrl(realm, rt.config, { protocol: req.protocol, host: req.headers.host });
        Object.assign(settings, {
          realm_uri: url,
          realm_url: url,
          realm_name: realm.name,
          realm_icon: `${url}/static/images/logo/zulip-icon-128x128.png`,
          realm_description: realm.description,
          realm_web_public_access_enabled: realm.enable_spectator_access,
        });
      }
      return settings;
    },
  }),
];
