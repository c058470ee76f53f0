import { createHmac, randomUUID } from 'node:crypto';
import type { OutboundFetch } from '@muse/core';
import { DeliveryError, postJson, type ProviderKind } from './types.ts';

/**
 * Aliyun (Alibaba Cloud) RPC-style API: common parameters plus the action's, signed with
 * HMAC-SHA1 over `POST&%2F&<percent-encoded canonical query>` under `AccessKeySecret&`.
 * SMS is `SendSms` on dysmsapi; a voice call reading the code is `SingleCallByTts` on dyvmsapi.
 */
export function aliyunPercentEncode(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

export function aliyunSignature(
  params: Record<string, string>,
  accessKeySecret: string,
  method = 'POST',
): string {
  const canonical = Object.keys(params)
    .sort()
    .map((key) => `${aliyunPercentEncode(key)}=${aliyunPercentEncode(params[key]!)}`)
    .join('&');
  const stringToSign = `${method}&${aliyunPercentEncode('/')}&${aliyunPercentEncode(canonical)}`;
  return createHmac('sha1', `${accessKeySecret}&`).update(stringToSign).digest('base64');
}

interface AliyunCommon {
  access_key_id: string;
  endpoint: string;
  region_id: string;
  template_param_name: string;
}
interface AliyunSecrets {
  access_key_secret: string;
}

async function callAliyun(
  fetch: OutboundFetch,
  config: AliyunCommon,
  secret: string,
  action: string,
  actionParams: Record<string, string>,
): Promise<void> {
  const params: Record<string, string> = {
    AccessKeyId: config.access_key_id,
    Action: action,
    Format: 'JSON',
    RegionId: config.region_id,
    SignatureMethod: 'HMAC-SHA1',
    SignatureNonce: randomUUID(),
    SignatureVersion: '1.0',
    Timestamp: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    Version: '2017-05-25',
    ...actionParams,
  };
  params.Signature = aliyunSignature(params, secret);
  const answer = (await postJson(fetch, config.endpoint, {
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
  })) as { Code?: string; Message?: string };
  if (answer.Code !== 'OK')
    throw new DeliveryError(`Aliyun ${action}: ${answer.Code ?? 'no code'} ${answer.Message ?? ''}`);
}

const commonConfig = {
  access_key_id: { type: 'string', minLength: 1 },
  region_id: { type: 'string', minLength: 1, default: 'cn-hangzhou' },
  template_param_name: {
    type: 'string',
    minLength: 1,
    default: 'code',
    description: 'Template variable holding the code',
  },
};
const secretsSchema = {
  type: 'object',
  properties: { access_key_secret: { type: 'string', minLength: 1 } },
  required: ['access_key_secret'],
  additionalProperties: false,
};

export const aliyunSms: ProviderKind<
  AliyunCommon & { sign_name: string; template_code: string },
  AliyunSecrets
> = {
  codeTypes: ['sms'],
  configSchema: {
    type: 'object',
    properties: {
      ...commonConfig,
      endpoint: { type: 'string', format: 'uri', default: 'https://dysmsapi.aliyuncs.com/' },
      sign_name: { type: 'string', minLength: 1 },
      template_code: { type: 'string', minLength: 1 },
    },
    required: ['access_key_id', 'sign_name', 'template_code'],
    additionalProperties: false,
  },
  secretsSchema,
  create: ({ config, secrets, fetch }) => ({
    send: ({ phone, code }) =>
      callAliyun(fetch, config, secrets.access_key_secret, 'SendSms', {
        PhoneNumbers: phone,
        SignName: config.sign_name,
        TemplateCode: config.template_code,
        TemplateParam: JSON.stringify({ [config.template_param_name]: code }),
      }),
  }),
};

export const aliyunVoice: ProviderKind<
  AliyunCommon & { tts_code: string; called_show_number?: string },
  AliyunSecrets
> = {
  codeTypes: ['voice'],
  configSchema: {
    type: 'object',
    properties: {
      ...commonConfig,
      endpoint: { type: 'string', format: 'uri', default: 'https://dyvmsapi.aliyuncs.com/' },
      tts_code: { type: 'string', minLength: 1, description: 'Voice (TTS) template id' },
      called_show_number: { type: 'string', description: 'Caller number shown to the callee' },
    },
    required: ['access_key_id', 'tts_code'],
    additionalProperties: false,
  },
  secretsSchema,
  create: ({ config, secrets, fetch }) => ({
    send: ({ phone, code }) =>
      callAliyun(fetch, config, secrets.access_key_secret, 'SingleCallByTts', {
        CalledNumber: phone,
        TtsCode: config.tts_code,
        TtsParam: JSON.stringify({ [config.template_param_name]: code }),
        ...(config.called_show_number ? { CalledShowNumber: config.called_show_number } : {}),
      }),
  }),
};
