import { updateRealmSettings } from '../domain/actions/realm-settings.ts';
import { endpoint } from '../http/endpoint.ts';
import { p } from '../http/params.ts';

/** The organization's settings an owner changes. */
export const realmEndpoints = [
  endpoint({
    method: 'patch',
    path: '/realm',
    operationId: 'updateRealm',
    summary: "Change the organization's settings",
    description:
      'Organization owners only (400 "Must be an organization owner"). Settings not sent are kept; ' +
      'everyone in the organization gets one realm update_dict event (property "default") with the ' +
      'values that changed, none when nothing did.',
    params: {
      email_address_visibility: p
        .int()
        .optional()
        .describe(
          "Who may see a new account's real email (1 everyone, 2 members, 3 administrators, 4 nobody, " +
            '5 moderators); each user may change theirs in PATCH /settings.',
        ),
      enable_spectator_access: p
        .bool()
        .optional()
        .describe(
          'Whether people who are not logged in may read the web-public channels; turning it on needs ' +
            'the server setting MUSE_CHAT_WEB_PUBLIC_STREAMS.',
        ),
      can_change_user_emails: p
        .bool()
        .optional()
        .describe("Whether owners may change users' email addresses (PATCH /users/{user_id} new_email)."),
    },
    example: { params: { email_address_visibility: 3 }, response: {} },
    view: async (params, actor) => {
      await updateRealmSettings(actor, params);
    },
  }),
];
