import { importPKCS8, SignJWT, type CryptoKey } from 'jose';
import type { OutboundFetch } from '@muse/core';
import type { PushDevice, PushNotification, PushOutcome } from './sender.ts';

/** The fields of a Google service-account key file that FCM HTTP v1 needs. */
export interface ServiceAccount {
  project_id: string;
  client_email: string;
  private_key: string;
  token_uri: string;
}

const SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';

/**
 * FCM HTTP v1: an OAuth access token obtained with the service account's signed JWT
 * (RFC 7523 bearer grant at its token_uri), then one authenticated send per device.
 */
export class FcmClient {
  private readonly account: ServiceAccount;
  private readonly baseUrl: string;
  private readonly fetch: OutboundFetch;
  private key: Promise<CryptoKey> | undefined;
  private access: { token: string; expiresAt: number } | undefined;

  constructor(account: ServiceAccount, baseUrl: string, fetch: OutboundFetch) {
    this.account = account;
    this.fetch = fetch;
    this.baseUrl = baseUrl.replace(/\/$/, '');
  }

  private async accessToken(): Promise<string> {
    if (this.access && Date.now() < this.access.expiresAt - 60_000) return this.access.token;
    this.key ??= importPKCS8(this.account.private_key, 'RS256');
    const assertion = await new SignJWT({ scope: SCOPE })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
      .setIssuer(this.account.client_email)
      .setAudience(this.account.token_uri)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(await this.key);
    const response = await this.fetch(this.account.token_uri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }),
    });
    if (!response.ok) throw new Error(`FCM token endpoint answered ${response.status}`);
    const granted = (await response.json()) as { access_token: string; expires_in: number };
    this.access = { token: granted.access_token, expiresAt: Date.now() + granted.expires_in * 1000 };
    return granted.access_token;
  }

  async send(device: PushDevice, notification: PushNotification): Promise<PushOutcome> {
    const response = await this.fetch(
      `${this.baseUrl}/v1/projects/${encodeURIComponent(this.account.project_id)}/messages:send`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${await this.accessToken()}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          message: { token: device.token, data: notification.data, android: { priority: 'high' } },
        }),
      },
    );
    if (response.ok) return 'delivered';
    if (response.status === 401) this.access = undefined; // expired early: the next send asks again
    const error = (await response.json().catch(() => ({}))) as {
      error?: { details?: { errorCode?: string }[] };
    };
    const code = error.error?.details?.find((d) => d.errorCode)?.errorCode;
    return code === 'UNREGISTERED' || response.status === 404 ? 'unregistered' : 'failed';
  }
}
