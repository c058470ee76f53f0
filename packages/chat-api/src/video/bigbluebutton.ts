import { createHash } from 'node:crypto';
import type { OutboundFetch } from '@muse/core';

/**
 * BigBlueButton's API: every call is `<base>api/<call>?<query>&checksum=<sha1(call + query + secret)>`.
 * `create` is idempotent for a meeting id; `join` is a URL the browser opens.
 */
export class BigBlueButton {
  private readonly apiBase: string;
  private readonly secret: string;
  private readonly fetch: OutboundFetch;

  constructor(url: string, secret: string, fetch: OutboundFetch) {
    this.fetch = fetch;
    this.apiBase = `${url.endsWith('/') ? url : `${url}/`}api/`;
    this.secret = secret;
  }

  signedUrl(call: string, params: Record<string, string>): string {
    const query = new URLSearchParams(params).toString();
    const checksum = createHash('sha1').update(`${call}${query}${this.secret}`).digest('hex');
    return `${this.apiBase}${call}?${query}&checksum=${checksum}`;
  }

  /** Creates the meeting (again: BigBlueButton answers SUCCESS for an existing one). */
  async create(meetingId: string, name: string, voiceOnly: boolean): Promise<void> {
    const params: Record<string, string> = { meetingID: meetingId, name };
    if (voiceOnly) params.lockSettingsDisableCam = 'true';
    const response = await this.fetch(this.signedUrl('create', params));
    const text = await response.text();
    if (!response.ok || !/<returncode>SUCCESS<\/returncode>/.test(text))
      throw new Error(
        `BigBlueButton create failed (${response.status}): ${/<message>(.*?)<\/message>/.exec(text)?.[1] ?? ''}`,
      );
  }

  joinUrl(meetingId: string, fullName: string, moderator: boolean): string {
    return this.signedUrl('join', {
      meetingID: meetingId,
      fullName,
      role: moderator ? 'MODERATOR' : 'VIEWER',
      redirect: 'true',
    });
  }
}
