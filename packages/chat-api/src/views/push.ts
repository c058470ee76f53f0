import {
  addDevice,
  removeDevice,
  sendTestNotification,
  validateAppId,
  type DeviceKind,
} from '../domain/actions/push.ts';
import { endpoint, type Endpoint } from '../http/endpoint.ts';
import { p } from '../http/params.ts';

/** The examples' device tokens: an APNs one (hexadecimal) and an FCM registration id. */
const APNS_TOKEN = '6e2a8c1f4b7d9e0a3c5f8b1d4e7a0c2f5b8d1e4a7c0f3b6d9e2a5c8f1b4d7e0a';
const FCM_TOKEN =
  'dKwS3Vb9RkO:APA91bHq7xY2mN4pL6tR8vW0zB3cD5fG7hJ9kL1nP3rT5vX7zA9bC1dE3fG5hJ7kL9mN1pQ3rS5tU7vW9xY1zA3';

const TOKEN_RULES =
  'An empty or over-long token is 400 "Empty or invalid length token"; an iOS token that is not ' +
  'hexadecimal is 400 "Invalid APNS token"; push not configured on the server is 400 BAD_REQUEST.';

/**
 * Each device family under Zulip's current path and under the spec's deprecated one; both are the
 * same code, for POST (register) and DELETE (remove).
 */
function deviceEndpoints(
  kind: DeviceKind,
  path: string,
  operation: string,
  what: string,
  deprecated: boolean,
): Endpoint[] {
  const note = deprecated ? ' (deprecated path, same code as the current one)' : '';
  const register =
    kind === 'apns'
      ? endpoint({
          method: 'post',
          path,
          operationId: `add${operation}`,
          summary: `Register ${what} (token, appid)${note}`,
          description: `${TOKEN_RULES} With the bouncer sender the device is registered with the bouncer first.`,
          params: { token: p.string(), appid: p.string().describe("The app's bundle id") },
          example: { params: { token: APNS_TOKEN, appid: 'org.zulip.Zulip' }, response: {} },
          view: async (params, actor) => {
            const appId = validateAppId(params.appid);
            await addDevice(actor, actor.runtime.push, { kind, token: params.token, appId });
          },
        })
      : endpoint({
          method: 'post',
          path,
          operationId: `add${operation}`,
          summary: `Register ${what} (token)${note}`,
          description: `${TOKEN_RULES} With the bouncer sender the device is registered with the bouncer first.`,
          params: { token: p.string() },
          example: { params: { token: FCM_TOKEN }, response: {} },
          view: async (params, actor) => {
            await addDevice(actor, actor.runtime.push, { kind, token: params.token, appId: null });
          },
        });
  const remove = endpoint({
    method: 'delete',
    path,
    operationId: `remove${operation}`,
    summary: `Remove ${what}${note}; an unknown token is 400 "Token does not exist"`,
    description:
      "The caller's own device with this token stops receiving notifications (a client removes it " +
      'on logging out); with the bouncer sender it is unregistered at the bouncer too. The token is ' +
      'checked as when registering; one the caller has not registered is 400 "Token does not exist".',
    params: { token: p.string() },
    example: { params: { token: kind === 'apns' ? APNS_TOKEN : FCM_TOKEN }, response: {} },
    view: async (params, actor) => {
      await removeDevice(actor, actor.runtime.push, kind, params.token);
    },
  });
  return [register, remove];
}

/** Mobile push devices and the test notification. */
export const pushEndpoints = [
  ...deviceEndpoints('apns', '/users/me/apns_device_token', 'ApnsDeviceToken', 'an iOS device', false),
  ...deviceEndpoints('apns', '/users/me/ios_device_token', 'IosDeviceToken', 'an iOS device', true),
  ...deviceEndpoints('fcm', '/users/me/android_gcm_reg_id', 'AndroidGcmRegId', 'an Android device', false),
  ...deviceEndpoints('fcm', '/users/me/android_reg_id', 'AndroidRegId', 'an Android device', true),
  endpoint({
    method: 'post',
    path: '/mobile_push/test_notification',
    operationId: 'sendTestNotification',
    summary:
      'Send a test notification (event "test", realm_name) to one device, or to all the caller\'s devices',
    description:
      "Delivered through the configured sender (MUSE_PUSH_SENDER: direct APNs/FCM, or Zulip's push " +
      'bouncer). A token this server does not know is 400 INVALID_PUSH_DEVICE_TOKEN; one the bouncer does ' +
      'not know is 400 INVALID_REMOTE_PUSH_DEVICE_TOKEN; no device at all is 400 NO_ACTIVE_PUSH_DEVICE; ' +
      'push not configured is 400 BAD_REQUEST. A token the service reports unregistered is removed.',
    params: { token: p.string().optional().describe('Without it, every device of the caller') },
    example: { params: { token: FCM_TOKEN }, response: {} },
    view: async (params, actor) => {
      await sendTestNotification(actor, actor.runtime.push, params.token);
    },
  }),
];
