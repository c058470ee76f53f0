/** A registered mobile device: an APNs device token or an FCM registration token. */
export interface PushDevice {
  id: number;
  user_id: number;
  kind: 'apns' | 'fcm';
  token: string;
  ios_app_id: string | null;
}

/**
 * What a notification says, independent of the service: `data` are the string fields both
 * services carry (Zulip's payload: event, realm_name, realm_url, …); `alert` is what iOS shows.
 */
export interface PushNotification {
  userId: number;
  data: Record<string, string>;
  alert: { title: string; body: string };
}

/** Per device: delivered, or the service says the token is no longer valid (remove it), or failed. */
export type PushOutcome = 'delivered' | 'unregistered' | 'failed';

/** The bouncer does not know the device (Zulip's INVALID_REMOTE_PUSH_DEVICE_TOKEN). */
export class RemoteTokenRejected extends Error {
  override name = 'RemoteTokenRejected';
}

/** A way to deliver pushes: direct APNs/FCM, or Zulip's push bouncer. */
export interface PushSender {
  readonly name: string;
  /** Tells the service about a new device (only the bouncer needs to know). */
  register(device: PushDevice): Promise<void>;
  unregister(device: PushDevice): Promise<void>;
  send(devices: PushDevice[], notification: PushNotification): Promise<Map<number, PushOutcome>>;
  /** A test notification to one device; throws RemoteTokenRejected when the bouncer does not know it. */
  sendTest(device: PushDevice, notification: PushNotification): Promise<PushOutcome>;
}
