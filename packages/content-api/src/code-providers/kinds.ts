import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { ValidationError } from '@muse/core';
import { aliyunSms, aliyunVoice } from './aliyun.ts';
import { tencentSms, tencentVoice } from './tencent.ts';
import { webhook } from './webhook.ts';
import { logProvider } from './log.ts';
import type { ProviderKind } from './types.ts';
import type { Schema } from '../http/contract.ts';

/** The provider types of the contract (`CodeProviderType` in openapi/auth.yaml). */
export type ProviderType = Schema<'CodeProviderType'>;

/**
 * Every provider type an administrator can configure, by its `type` name: the type checker
 * holds the keys to the contract's list, one each.
 */
export const PROVIDER_KINDS = {
  aliyun_sms: aliyunSms,
  aliyun_voice: aliyunVoice,
  tencent_sms: tencentSms,
  tencent_voice: tencentVoice,
  webhook,
  log: logProvider,
} satisfies Record<ProviderType, unknown> as unknown as Record<ProviderType, ProviderKind>;

export function isProviderType(value: unknown): value is ProviderType {
  return typeof value === 'string' && Object.hasOwn(PROVIDER_KINDS, value);
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ useDefaults: true, allErrors: true }));
const validators = new Map<object, ValidateFunction>();

/** Validates (and fills defaults into) a provider's config or secrets; 422 naming each bad field. */
export function checkProviderSettings(
  type: ProviderType,
  part: 'config' | 'secrets',
  value: Record<string, unknown>,
): Record<string, unknown> {
  const schema = PROVIDER_KINDS[type][part === 'config' ? 'configSchema' : 'secretsSchema'];
  let validate = validators.get(schema);
  if (!validate) validators.set(schema, (validate = ajv.compile(schema)));
  const copy = structuredClone(value);
  if (!validate(copy)) {
    const details = (validate.errors ?? []).map((error) => ({
      path: `${part}${error.instancePath.replaceAll('/', '.')}`,
      message: error.message ?? 'is not valid',
    }));
    throw new ValidationError(`The ${part} is not valid for a ${type} provider`, details);
  }
  return copy;
}
