import { createHmac } from 'node:crypto';
import { postJson, type ProviderKind } from './types.ts';

/**
 * Delivers codes to your own HTTPS endpoint: a POST of `{phone, code, code_type}` with
 * `X-Muse-Timestamp` (Unix seconds) and `X-Muse-Signature: sha256=<hex HMAC-SHA256 of
 * "<timestamp>.<body>" under the signing secret>`. The receiver recomputes the HMAC and
 * rejects old timestamps, so a captured request cannot be replayed later.
 */
export function webhookSignature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export const webhook: ProviderKind<{ url: string }, { signing_secret: string }> = {
  codeTypes: ['sms', 'voice'],
  configSchema: {
    type: 'object',
    properties: {
      url: {
        type: 'string',
        format: 'uri',
        pattern: '^(https://|http://(127\\.0\\.0\\.1|localhost|\\[::1\\])(:|/|$))',
        description: 'HTTPS endpoint (plain HTTP only to this machine)',
      },
    },
    required: ['url'],
    additionalProperties: false,
  },
  secretsSchema: {
    type: 'object',
    properties: { signing_secret: { type: 'string', minLength: 16 } },
    required: ['signing_secret'],
    additionalProperties: false,
  },
  create: ({ config, secrets, fetch }) => ({
    async send({ phone, code, codeType }) {
      const body = JSON.stringify({ phone, code, code_type: codeType });
      const timestamp = String(Math.floor(Date.now() / 1000));
      await postJson(fetch, config.url, {
        headers: {
          'Content-Type': 'application/json',
          'X-Muse-Timestamp': timestamp,
          'X-Muse-Signature': webhookSignature(secrets.signing_secret, timestamp, body),
        },
        body,
      });
    },
  }),
};
