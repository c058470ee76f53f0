import { AppError, NotImplementedError, type Logger, type OutboundFetch } from '@muse/core';
import { maskPhone } from '../login/phone.ts';
import { PROVIDER_KINDS } from './kinds.ts';
import type { ProviderRow } from './store.ts';
import type { CodeMessage } from './types.ts';

/** 501 when no enabled provider can deliver this kind of code (checked before a code is made). */
export function requireProviders(providers: ProviderRow[], codeType: string): ProviderRow[] {
  if (providers.length === 0) {
    throw new NotImplementedError(`No enabled verification-code provider can deliver ${codeType} codes`);
  }
  return providers;
}

/**
 * Tries the providers in order until one accepts the code; a failure is logged and the next
 * provider is tried. When all fail the caller gets 502 and may ask again.
 */
export async function deliverCode(
  providers: ProviderRow[],
  message: CodeMessage,
  logger: Logger,
  fetch: OutboundFetch,
): Promise<ProviderRow> {
  for (const provider of providers) {
    try {
      const sender = PROVIDER_KINDS[provider.type].create({
        config: provider.config,
        secrets: provider.secrets,
        logger,
        fetch,
      });
      await sender.send(message);
      logger.info({ provider: provider.name, phone: maskPhone(message.phone) }, 'verification code sent');
      return provider;
    } catch (error) {
      logger.warn(
        { provider: provider.name, err: error },
        'verification-code provider failed; trying the next',
      );
    }
  }
  throw new AppError(502, 'code_delivery_failed', 'No provider could deliver the code; try again later');
}
