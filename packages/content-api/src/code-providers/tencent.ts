import { createHash, createHmac } from 'node:crypto';
import type { OutboundFetch } from '@muse/core';
import { DeliveryError, postJson, type ProviderKind } from './types.ts';

/**
 * Tencent Cloud API 3.0 with TC3-HMAC-SHA256: a canonical request (method, path, query,
 * signed headers content-type and host, SHA-256 of the body) is hashed into a string to sign,
 * which is signed with a key derived from the secret key by the date, the service and
 * `tc3_request`. SMS is `SendSms` (sms, 2021-01-11); a voice call reading the code is
 * `SendTtsVoice` (vms, 2020-09-02).
 */
const CONTENT_TYPE = 'application/json; charset=utf-8';

const sha256Hex = (data: string) => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();

export function tc3Authorization(input: {
  secretId: string;
  secretKey: string;
  service: string;
  host: string;
  timestamp: number;
  body: string;
}): string {
  const date = new Date(input.timestamp * 1000).toISOString().slice(0, 10);
  const signedHeaders = 'content-type;host';
  const canonicalRequest = [
    'POST',
    '/',
    '',
    `content-type:${CONTENT_TYPE}\nhost:${input.host}\n`,
    signedHeaders,
    sha256Hex(input.body),
  ].join('\n');
  const scope = `${date}/${input.service}/tc3_request`;
  const stringToSign = ['TC3-HMAC-SHA256', String(input.timestamp), scope, sha256Hex(canonicalRequest)].join(
    '\n',
  );
  const signingKey = hmac(hmac(hmac(`TC3${input.secretKey}`, date), input.service), 'tc3_request');
  const signature = createHmac('sha256', signingKey).update(stringToSign).digest('hex');
  return `TC3-HMAC-SHA256 Credential=${input.secretId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
}

interface TencentCommon {
  secret_id: string;
  region: string;
  endpoint: string;
  template_id: string;
}
interface TencentSecrets {
  secret_key: string;
}

async function callTencent(
  fetch: OutboundFetch,
  config: TencentCommon,
  secretKey: string,
  call: { service: string; action: string; version: string; payload: object },
): Promise<Record<string, unknown>> {
  const body = JSON.stringify(call.payload);
  const host = new URL(config.endpoint).host;
  const timestamp = Math.floor(Date.now() / 1000);
  const answer = (await postJson(fetch, config.endpoint, {
    headers: {
      'Content-Type': CONTENT_TYPE,
      'X-TC-Action': call.action,
      'X-TC-Version': call.version,
      'X-TC-Timestamp': String(timestamp),
      'X-TC-Region': config.region,
      Authorization: tc3Authorization({
        secretId: config.secret_id,
        secretKey,
        service: call.service,
        host,
        timestamp,
        body,
      }),
    },
    body,
  })) as { Response?: Record<string, unknown> & { Error?: { Code: string; Message: string } } };
  const response = answer.Response;
  if (!response) throw new DeliveryError(`Tencent ${call.action}: answer without Response`);
  if (response.Error)
    throw new DeliveryError(`Tencent ${call.action}: ${response.Error.Code} ${response.Error.Message}`);
  return response;
}

const commonProperties = {
  secret_id: { type: 'string', minLength: 1 },
  region: { type: 'string', minLength: 1, default: 'ap-guangzhou' },
  template_id: { type: 'string', minLength: 1 },
};
const secretsSchema = {
  type: 'object',
  properties: { secret_key: { type: 'string', minLength: 1 } },
  required: ['secret_key'],
  additionalProperties: false,
};

export const tencentSms: ProviderKind<
  TencentCommon & { sdk_app_id: string; sign_name: string },
  TencentSecrets
> = {
  codeTypes: ['sms'],
  configSchema: {
    type: 'object',
    properties: {
      ...commonProperties,
      endpoint: { type: 'string', format: 'uri', default: 'https://sms.tencentcloudapi.com/' },
      sdk_app_id: { type: 'string', minLength: 1 },
      sign_name: { type: 'string', minLength: 1 },
    },
    required: ['secret_id', 'sdk_app_id', 'sign_name', 'template_id'],
    additionalProperties: false,
  },
  secretsSchema,
  create: ({ config, secrets, fetch }) => ({
    async send({ phone, code }) {
      const response = await callTencent(fetch, config, secrets.secret_key, {
        service: 'sms',
        action: 'SendSms',
        version: '2021-01-11',
        payload: {
          PhoneNumberSet: [`+86${phone}`],
          SmsSdkAppId: config.sdk_app_id,
          SignName: config.sign_name,
          TemplateId: config.template_id,
          TemplateParamSet: [code],
        },
      });
      const status = (response.SendStatusSet as { Code?: string; Message?: string }[] | undefined)?.[0];
      if (status?.Code !== 'Ok')
        throw new DeliveryError(`Tencent SendSms: ${status?.Code ?? 'no status'} ${status?.Message ?? ''}`);
    },
  }),
};

export const tencentVoice: ProviderKind<
  TencentCommon & { voice_sdk_app_id: string; play_times: number },
  TencentSecrets
> = {
  codeTypes: ['voice'],
  configSchema: {
    type: 'object',
    properties: {
      ...commonProperties,
      endpoint: { type: 'string', format: 'uri', default: 'https://vms.tencentcloudapi.com/' },
      voice_sdk_app_id: { type: 'string', minLength: 1 },
      play_times: { type: 'integer', minimum: 1, maximum: 3, default: 2 },
    },
    required: ['secret_id', 'voice_sdk_app_id', 'template_id'],
    additionalProperties: false,
  },
  secretsSchema,
  create: ({ config, secrets, fetch }) => ({
    async send({ phone, code }) {
      const response = await callTencent(fetch, config, secrets.secret_key, {
        service: 'vms',
        action: 'SendTtsVoice',
        version: '2020-09-02',
        payload: {
          TemplateId: config.template_id,
          TemplateParamSet: [code],
          CalledNumber: `+86${phone}`,
          VoiceSdkAppid: config.voice_sdk_app_id,
          PlayTimes: config.play_times,
        },
      });
      if (!response.SendStatus) throw new DeliveryError('Tencent SendTtsVoice: answer without SendStatus');
    },
  }),
};
