import type { OutboundFetch } from '@muse/core';
import {
  RemoteTokenRejected,
  type PushDevice,
  type PushNotification,
  type PushOutcome,
  type PushSender,
} from './sender.ts';

export interface BouncerSettings {
  url: string;
  serverUuid: string;
  apiKey: string;
  fetch: OutboundFetch;
}

/** Zulip's token kinds in the bouncer protocol. */
const TOKEN_KIND = { apns: 1, fcm: 2 } as const;

/**
 * Zulip's push bouncer protocol (`/api/v1/remotes/push/…`): the server registered with the
 * bouncer authenticates with HTTP Basic (server UUID, API key); the bouncer holds the APNs and
 * FCM credentials and the devices registered through it.
 */
export class BouncerSender implements PushSender {
  readonly name = 'bouncer';
  private readonly settings: BouncerSettings;

  constructor(settings: BouncerSettings) {
    this.settings = settings;
  }

  private async post(path: string, body: URLSearchParams | object): Promise<Response> {
    const form = body instanceof URLSearchParams;
    const credentials = Buffer.from(`${this.settings.serverUuid}:${this.settings.apiKey}`).toString('base64');
    return this.settings.fetch(`${this.settings.url.replace(/\/$/, '')}/api/v1/remotes/push/${path}`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${credentials}`,
        'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json',
      },
      body: form ? body : JSON.stringify(body),
    });
  }

  private async expectOk(response: Response, what: string): Promise<Record<string, unknown>> {
    const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (response.ok) return body;
    if (body.code === 'INVALID_REMOTE_PUSH_DEVICE_TOKEN') throw new RemoteTokenRejected(String(body.msg));
    throw new Error(`push bouncer ${what} answered ${response.status}: ${String(body.msg ?? '')}`);
  }

  private deviceForm(device: PushDevice): URLSearchParams {
    const form = new URLSearchParams({
      user_id: String(device.user_id),
      token: device.token,
      token_kind: String(TOKEN_KIND[device.kind]),
    });
    if (device.ios_app_id) form.set('ios_app_id', device.ios_app_id);
    return form;
  }

  async register(device: PushDevice): Promise<void> {
    await this.expectOk(await this.post('register', this.deviceForm(device)), 'register');
  }

  async unregister(device: PushDevice): Promise<void> {
    const form = this.deviceForm(device);
    form.delete('ios_app_id');
    await this.post('unregister', form);
  }

  async send(devices: PushDevice[], notification: PushNotification): Promise<Map<number, PushOutcome>> {
    const apple = devices.filter((d) => d.kind === 'apns');
    const android = devices.filter((d) => d.kind === 'fcm');
    const response = await this.post('notify', {
      user_id: notification.userId,
      apns_payload: { alert: notification.alert, sound: 'default', custom: { zulip: notification.data } },
      gcm_payload: notification.data,
      gcm_options: { priority: 'high' },
      apple_devices: apple.map((d) => d.token),
      android_devices: android.map((d) => d.token),
    });
    const body = (await this.expectOk(response, 'notify')) as {
      deleted_devices?: { apple_devices?: string[]; android_devices?: string[] };
    };
    const deleted = new Set([
      ...(body.deleted_devices?.apple_devices ?? []),
      ...(body.deleted_devices?.android_devices ?? []),
    ]);
    return new Map(devices.map((d) => [d.id, deleted.has(d.token) ? 'unregistered' : 'delivered']));
  }

  async sendTest(device: PushDevice, notification: PushNotification): Promise<PushOutcome> {
    const form = this.deviceForm(device);
    form.delete('ios_app_id');
    form.set('base_payload', JSON.stringify(notification.data));
    await this.expectOk(await this.post('test_notification', form), 'test_notification');
    return 'delivered';
  }
}
