import { createHash } from 'node:crypto';
import {
  NotImplementedError,
  type Config,
  type Logger,
  type OutboundFetch,
  type SecretBox,
  type Sequelize,
} from '@muse/core';
import { readPaymentApi, readPaymentSecrets, type PaymentApiView } from '../admin/payment-api.ts';
import { developmentProvider } from './providers/development.ts';
import { wechatPayProvider } from './providers/wechat-pay.ts';
import { alipayProvider } from './providers/alipay.ts';
import type { PaymentProviderAdapter, ProviderDeps, ProviderName } from './providers/types.ts';

export const DEFAULT_ORDER_TTL_SECONDS = 900;

const FACTORIES: Partial<Record<ProviderName, (deps: ProviderDeps) => PaymentProviderAdapter>> = {
  development: developmentProvider,
  wechat_pay: wechatPayProvider,
  alipay: alipayProvider,
};

export interface PaymentsDeps {
  db: Sequelize;
  config: Config;
  logger: Logger;
  outbound: OutboundFetch;
  secrets: SecretBox;
}

export interface ActiveProvider {
  adapter: PaymentProviderAdapter;
  view: PaymentApiView;
}

/**
 * The provider that takes new orders: the one configured in `payment-api`, when `enabled`.
 * None configured (or disabled) answers 501, as verification codes do without a provider.
 */
export async function orderingProvider(deps: PaymentsDeps): Promise<ActiveProvider> {
  const view = await readPaymentApi(deps.db);
  const name = view.provider as ProviderName;
  if (!view.enabled || !FACTORIES[name])
    throw new NotImplementedError('No payment provider is configured and enabled; top-ups are not offered');
  if (name === 'development' && deps.config.NODE_ENV === 'production')
    throw new NotImplementedError('The development payment provider is not available in production');
  return { adapter: await providerAdapter(deps, name, view), view };
}

/**
 * The adapter of `name` with the stored settings, for calls about existing orders (queries,
 * notifications, closing, refunds): those keep working after the provider was disabled, since
 * orders already opened with it must still settle.
 */
export async function providerAdapter(
  deps: PaymentsDeps,
  name: ProviderName,
  view?: PaymentApiView,
): Promise<PaymentProviderAdapter> {
  const factory = FACTORIES[name];
  if (!factory) throw new NotImplementedError(`The ${name} payment provider is not available`);
  const settings = view ?? (await readPaymentApi(deps.db));
  const secrets = await readPaymentSecrets(deps.db, deps.secrets);
  return factory({
    settings: { ...settings, secrets },
    outbound: boundedOutbound(deps),
    logger: deps.logger,
    developmentKey: developmentKey(deps.config),
  });
}

/**
 * Every provider call is bounded by MUSE_PAYMENT_PROVIDER_TIMEOUT_MS (a hung provider answers
 * OutboundError 'timeout' then), so a request or a workflow step never waits longer than that.
 */
function boundedOutbound({ outbound, config }: PaymentsDeps): OutboundFetch {
  return (url, init = {}) => {
    const timeout = AbortSignal.timeout(config.MUSE_PAYMENT_PROVIDER_TIMEOUT_MS);
    return outbound(url, {
      ...init,
      signal: init.signal ? AbortSignal.any([init.signal, timeout]) : timeout,
    });
  };
}

/** The development provider's link key, derived from the token secret (a separate purpose). */
function developmentKey(config: Config): string {
  return createHash('sha256')
    .update(`muse development payments\n${config.MUSE_JWT_SECRET ?? ''}`)
    .digest('hex');
}
