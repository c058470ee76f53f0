import type { ApnsClient } from './apns.ts';
import type { FcmClient } from './fcm.ts';
import type { PushDevice, PushNotification, PushOutcome, PushSender } from './sender.ts';

/** This server's own APNs and/or FCM credentials; a device of a service not configured fails. */
export class DirectSender implements PushSender {
  readonly name = 'direct';
  private readonly apns: ApnsClient | undefined;
  private readonly fcm: FcmClient | undefined;

  constructor(apns: ApnsClient | undefined, fcm: FcmClient | undefined) {
    this.apns = apns;
    this.fcm = fcm;
  }

  async register(): Promise<void> {}
  async unregister(): Promise<void> {}

  private async one(device: PushDevice, notification: PushNotification): Promise<PushOutcome> {
    const client = device.kind === 'apns' ? this.apns : this.fcm;
    if (!client) return 'failed';
    try {
      return await client.send(device, notification);
    } catch {
      return 'failed';
    }
  }

  async send(devices: PushDevice[], notification: PushNotification): Promise<Map<number, PushOutcome>> {
    const outcomes = await Promise.all(devices.map((d) => this.one(d, notification)));
    return new Map(devices.map((d, i) => [d.id, outcomes[i] ?? 'failed']));
  }

  sendTest(device: PushDevice, notification: PushNotification): Promise<PushOutcome> {
    return this.one(device, notification);
  }
}
