import { randomUUID } from 'node:crypto';
import { json, startFakeServer, type FakeServer } from './server.ts';

export interface BouncerDevice {
  user_id: string;
  token: string;
  token_kind: string;
}

export interface FakeBouncer {
  server: FakeServer;
  serverUuid: string;
  apiKey: string;
  devices: BouncerDevice[];
  notifications: Record<string, unknown>[];
  tests: Record<string, string>[];
  /** Tokens whose service reports them gone; `notify` answers them in deleted_devices. */
  unregistered: Set<string>;
  close(): Promise<void>;
}

/**
 * Zulip's push bouncer (`/api/v1/remotes/push/{register,unregister,notify,test_notification}`),
 * authenticating the registered server with HTTP Basic (server UUID, API key) as the real one.
 */
export async function startFakeBouncer(): Promise<FakeBouncer> {
  const serverUuid = randomUUID();
  const apiKey = randomUUID().replaceAll('-', '');
  const devices: BouncerDevice[] = [];
  const notifications: Record<string, unknown>[] = [];
  const tests: Record<string, string>[] = [];
  const unregistered = new Set<string>();
  const expected = `Basic ${Buffer.from(`${serverUuid}:${apiKey}`).toString('base64')}`;
  const find = (f: URLSearchParams) =>
    devices.findIndex(
      (d) =>
        d.user_id === f.get('user_id') && d.token === f.get('token') && d.token_kind === f.get('token_kind'),
    );
  const server = await startFakeServer((request, res) => {
    if (request.headers.authorization !== expected)
      return json(res, 401, { result: 'error', code: 'UNAUTHORIZED', msg: 'Invalid API key' });
    const form = new URLSearchParams(request.body);
    switch (`${request.method} ${request.path}`) {
      case 'POST /api/v1/remotes/push/register':
        if (!form.get('token') || !['1', '2'].includes(form.get('token_kind') ?? ''))
          return json(res, 400, { result: 'error', code: 'BAD_REQUEST', msg: 'Invalid token type' });
        if (find(form) < 0)
          devices.push({
            user_id: form.get('user_id') ?? '',
            token: form.get('token') ?? '',
            token_kind: form.get('token_kind') ?? '',
          });
        return json(res, 200, { result: 'success', msg: '' });
      case 'POST /api/v1/remotes/push/unregister': {
        const at = find(form);
        if (at < 0)
          return json(res, 400, { result: 'error', code: 'BAD_REQUEST', msg: 'Token does not exist' });
        devices.splice(at, 1);
        return json(res, 200, { result: 'success', msg: '' });
      }
      case 'POST /api/v1/remotes/push/test_notification':
        if (find(form) < 0)
          return json(res, 400, {
            result: 'error',
            code: 'INVALID_REMOTE_PUSH_DEVICE_TOKEN',
            msg: 'Device not recognized by the push bouncer',
          });
        tests.push(Object.fromEntries(form));
        return json(res, 200, { result: 'success', msg: '' });
      case 'POST /api/v1/remotes/push/notify': {
        const body = JSON.parse(request.body) as { apple_devices: string[]; android_devices: string[] };
        notifications.push(body);
        const gone = (list: string[]) => list.filter((t) => unregistered.has(t));
        return json(res, 200, {
          result: 'success',
          msg: '',
          total_android_devices: body.android_devices.length,
          total_apple_devices: body.apple_devices.length,
          deleted_devices: {
            android_devices: gone(body.android_devices),
            apple_devices: gone(body.apple_devices),
          },
        });
      }
      default:
        return json(res, 404, { result: 'error', code: 'BAD_REQUEST', msg: 'Unknown endpoint' });
    }
  });
  return {
    server,
    serverUuid,
    apiKey,
    devices,
    notifications,
    tests,
    unregistered,
    close: () => server.close(),
  };
}
