import {
  createFileStorage,
  createOutboundFetch,
  createSecretBox,
  type Config,
  type FileStorage,
  type Logger,
  type OutboundFetch,
  type SecretBox,
} from '@muse/core';
import { createTokenSigner, type TokenSigner } from './auth/tokens.ts';

/** The content service's own collaborators, built from configuration (tests build their own). */
export interface ContentServices {
  tokens: TokenSigner;
  storage: FileStorage;
  /** Calls to code providers: the address policy of MUSE_OUTBOUND_ALLOW applies. */
  outbound: OutboundFetch;
  /** Seals and opens stored secrets (MUSE_SECRETS_KEY). */
  secrets: SecretBox;
}

export function createContentServices(config: Config, logger?: Logger): ContentServices {
  if (!config.MUSE_JWT_SECRET) {
    throw new Error(
      'MUSE_JWT_SECRET is not set (at least 32 characters); `npm start` generates one for development.',
    );
  }
  return {
    tokens: createTokenSigner(config.MUSE_JWT_SECRET, config.MUSE_JWT_TTL_SECONDS),
    storage: createFileStorage(config),
    secrets: createSecretBox(config.MUSE_SECRETS_KEY),
    outbound: createOutboundFetch({ allow: config.MUSE_OUTBOUND_ALLOW, ...(logger ? { logger } : {}) }),
  };
}
