import type { ClientHttp2Session } from 'node:http2';
import { importPKCS8, SignJWT, type CryptoKey } from 'jose';
import type { PushDevice, PushNotification, PushOutcome } from './sender.ts';

export interface ApnsSettings {
  url: string;
  keyPem: string;
  keyId: string;
  teamId: string;
  connect: (authority: string) => ClientHttp2Session;
}

/** Apple refuses provider tokens older than an hour and throttles ones renewed more often than every 20 minutes. */
const TOKEN_LIFETIME_MS = 50 * 60 * 1000;

/** Reasons with which APNs says a token will never work again (the device is removed). */
const GONE = new Set(['Unregistered', 'BadDeviceToken', 'DeviceTokenNotForTopic']);

/** Direct APNs: HTTP/2, token-based authentication (an ES256 JWT signed with the team's .p8 key). */
export class ApnsClient {
  private readonly settings: ApnsSettings;
  private key: Promise<CryptoKey> | undefined;
  private token: { jwt: string; at: number } | undefined;
  private session: ClientHttp2Session | undefined;

  constructor(settings: ApnsSettings) {
    this.settings = settings;
  }

  private async providerToken(): Promise<string> {
    if (this.token && Date.now() - this.token.at < TOKEN_LIFETIME_MS) return this.token.jwt;
    this.key ??= importPKCS8(this.settings.keyPem, 'ES256');
    const jwt = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: this.settings.keyId })
      .setIssuer(this.settings.teamId)
      .setIssuedAt()
      .sign(await this.key);
    this.token = { jwt, at: Date.now() };
    return jwt;
  }

  /** One long-lived connection, as Apple asks; reopened when it closed. */
  private connection(): ClientHttp2Session {
    if (!this.session || this.session.closed || this.session.destroyed) {
      const session = this.settings.connect(this.settings.url);
      session.on('error', () => session.destroy());
      session.unref();
      this.session = session;
    }
    return this.session;
  }

  async send(device: PushDevice, notification: PushNotification): Promise<PushOutcome> {
    const body = JSON.stringify({
      aps: { alert: notification.alert, sound: 'default', badge: 0 },
      ...notification.data,
    });
    const headers = {
      ':method': 'POST',
      ':path': `/3/device/${device.token}`,
      authorization: `bearer ${await this.providerToken()}`,
      'apns-topic': device.ios_app_id ?? '',
      'apns-push-type': 'alert',
      'apns-priority': '10',
      'content-type': 'application/json',
    };
    const { status, reason } = await new Promise<{ status: number; reason: string }>((resolve, reject) => {
      const request = this.connection().request(headers);
      let status = 0;
      const chunks: Buffer[] = [];
      request.on('response', (h) => (status = Number(h[':status'])));
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status, reason: text ? String((JSON.parse(text) as { reason?: string }).reason) : '' });
      });
      request.on('error', reject);
      request.end(body);
    });
    if (status === 200) return 'delivered';
    if (status === 410 || GONE.has(reason)) return 'unregistered';
    return 'failed';
  }

  close(): void {
    this.session?.close();
  }
}
