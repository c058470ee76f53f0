import type { Router } from 'express';
import {
  addDevice,
  removeDevice,
  sendTestNotification,
  validateAppId,
  type DeviceKind,
} from '../domain/push.ts';
import { endpoint, p } from '../http/params.ts';
import { authed, type ChatRuntime } from './context.ts';

/**
 * Each device family under Zulip's current path and the spec's deprecated one; both paths are
 * the same code, for POST (register) and DELETE (remove).
 */
const FAMILIES: { kind: DeviceKind; paths: string[] }[] = [
  { kind: 'apns', paths: ['/users/me/apns_device_token', '/users/me/ios_device_token'] },
  { kind: 'fcm', paths: ['/users/me/android_gcm_reg_id', '/users/me/android_reg_id'] },
];

/** Mobile push devices and the test notification. */
export function pushRoutes(router: Router, runtime: ChatRuntime): void {
  const ctx = authed(runtime);
  for (const { kind, paths } of FAMILIES) {
    const register =
      kind === 'apns'
        ? endpoint({ token: p.string(), appid: p.string() }, ctx, async (params, actor) => {
            const appId = validateAppId(params.appid);
            await addDevice(actor, runtime.push, { kind, token: params.token, appId });
          })
        : endpoint({ token: p.string() }, ctx, async (params, actor) => {
            await addDevice(actor, runtime.push, { kind, token: params.token, appId: null });
          });
    const remove = endpoint({ token: p.string() }, ctx, async (params, actor) => {
      await removeDevice(actor, runtime.push, kind, params.token);
    });
    for (const path of paths) {
      router.post(path, register);
      router.delete(path, remove);
    }
  }

  router.post(
    '/mobile_push/test_notification',
    endpoint({ token: p.string().optional() }, ctx, async (params, actor) => {
      await sendTestNotification(actor, runtime.push, params.token);
    }),
  );
}
