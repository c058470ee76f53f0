import type { ProviderKind } from './types.ts';

/** Development only: writes the code to the server log instead of sending it anywhere. */
export const logProvider: ProviderKind<Record<string, never>, Record<string, never>> = {
  codeTypes: ['sms', 'voice'],
  developmentOnly: true,
  configSchema: { type: 'object', properties: {}, additionalProperties: false },
  secretsSchema: { type: 'object', properties: {}, additionalProperties: false },
  create: ({ logger }) => ({
    async send({ phone, code, codeType }) {
      logger.warn(
        { phone, code_type: codeType },
        `verification code for ${phone}: ${code} (log provider, development only)`,
      );
    },
  }),
};
