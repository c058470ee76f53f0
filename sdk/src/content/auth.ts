import type { paths } from '../generated/content.ts';
import type { CallOptions } from '../transport/transport.ts';
import type { TypedClient } from '../typed-client.ts';

export interface AuthHelpers {
  /** Sends a one-time login code to the phone (`codeType` sms by default, or voice). */
  requestCode(phone: string, options?: { codeType?: 'sms' | 'voice' } & CallOptions): Promise<void>;
  /** Exchanges the phone and its code for a bearer token, which the client keeps and sends from now on. */
  login(phone: string, code: string, options?: { source?: string } & CallOptions): Promise<string>;
}

export function authHelpers(api: TypedClient<paths>, setToken: (token: string) => void): AuthHelpers {
  return {
    async requestCode(phone, { codeType, ...call } = {}) {
      await api.GET('/api/v1/auth/verification-code', {
        params: { query: { phone_number: phone, ...(codeType ? { code_type: codeType } : {}) } },
        ...call,
      });
    },
    async login(phone, code, { source, ...call } = {}) {
      const { data } = await api.POST('/api/v1/auth/token', {
        body: { phone, verification_code: code, ...(source !== undefined ? { source } : {}) },
        ...call,
      });
      setToken(data.token);
      return data.token;
    },
  };
}
