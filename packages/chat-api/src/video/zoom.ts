import type { OutboundFetch } from '@muse/core';

export interface ZoomSettings {
  clientId: string;
  clientSecret: string;
  oauthUrl: string;
  apiUrl: string;
  fetch: OutboundFetch;
}

export interface ZoomTokens {
  access_token: string;
  refresh_token: string;
}

/** Zoom refused the user's token, even after a refresh: they must authorize again. */
export class ZoomTokenInvalid extends Error {
  override name = 'ZoomTokenInvalid';
}

/** Zoom's per-user OAuth app: authorize, exchange or refresh tokens, create a meeting as the user. */
export class ZoomClient {
  private readonly settings: ZoomSettings;

  constructor(settings: ZoomSettings) {
    this.settings = settings;
  }

  authorizeUrl(redirectUri: string, state: string): string {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: this.settings.clientId,
      redirect_uri: redirectUri,
      state,
    });
    return `${this.settings.oauthUrl.replace(/\/$/, '')}/oauth/authorize?${query}`;
  }

  private async token(form: Record<string, string>): Promise<ZoomTokens> {
    const credentials = Buffer.from(`${this.settings.clientId}:${this.settings.clientSecret}`).toString(
      'base64',
    );
    const response = await this.settings.fetch(`${this.settings.oauthUrl.replace(/\/$/, '')}/oauth/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${credentials}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });
    if (!response.ok) throw new ZoomTokenInvalid(`Zoom token endpoint answered ${response.status}`);
    const { access_token, refresh_token } = (await response.json()) as ZoomTokens;
    return { access_token, refresh_token };
  }

  exchangeCode(code: string, redirectUri: string): Promise<ZoomTokens> {
    return this.token({ grant_type: 'authorization_code', code, redirect_uri: redirectUri });
  }

  /**
   * Creates a meeting as the user; an expired access token is refreshed once. Returns the join
   * URL and the tokens to keep (new ones when refreshed).
   */
  async createMeeting(tokens: ZoomTokens): Promise<{ url: string; tokens: ZoomTokens }> {
    const attempt = (accessToken: string) =>
      this.settings.fetch(`${this.settings.apiUrl.replace(/\/$/, '')}/v2/users/me/meetings`, {
        method: 'POST',
        headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ settings: { host_video: true, participant_video: true } }),
      });
    let current = tokens;
    let response = await attempt(current.access_token);
    if (response.status === 401) {
      current = await this.token({ grant_type: 'refresh_token', refresh_token: current.refresh_token });
      response = await attempt(current.access_token);
    }
    if (response.status === 401) throw new ZoomTokenInvalid('Zoom refused the refreshed token');
    if (!response.ok) throw new Error(`Zoom meeting creation answered ${response.status}`);
    const { join_url } = (await response.json()) as { join_url: string };
    return { url: join_url, tokens: current };
  }
}
