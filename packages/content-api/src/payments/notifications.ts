import { NotImplementedError } from '@muse/core';
import type { PaymentsDeps } from './config.ts';
import { providerAdapter } from './config.ts';
import { settlePaid } from './transitions.ts';
import {
  NotificationRejected,
  type IncomingNotification,
  type NotificationAnswer,
  type ProviderName,
} from './providers/types.ts';

/**
 * A provider's asynchronous notification. Only one whose signature verifies, for this merchant,
 * about one of our orders with its exact amount, settles anything (through settlePaid, which
 * credits once however often it arrives); everything else changes nothing, is logged, and is
 * answered as a failure in the provider's protocol.
 */
export async function receiveNotification(
  deps: PaymentsDeps,
  provider: ProviderName,
  incoming: IncomingNotification,
): Promise<NotificationAnswer> {
  let adapter;
  try {
    adapter = await providerAdapter(deps, provider);
  } catch (error) {
    // A database that cannot be read now is answered 503 by the error handler (the provider
    // sends the notification again); only a provider not configured is refused here.
    if (!(error instanceof NotImplementedError)) throw error;
    // Not configured (501): nothing can be verified, so nothing is taken.
    deps.logger.warn({ err: error, provider }, 'payment notification for a provider that is not configured');
    return UNCONFIGURED[provider];
  }
  if (provider === 'development' && deps.config.NODE_ENV === 'production')
    return adapter.rejected('the development provider is not available in production');
  let state;
  try {
    state = await adapter.verifyNotification(incoming);
  } catch (error) {
    if (!(error instanceof NotificationRejected)) throw error;
    deps.logger.warn(
      { provider, reason: error.reason, detail: error.message },
      'payment notification refused',
    );
    return adapter.rejected(error.message);
  }
  // Only successful payments are announced as such; other trade states need no action here.
  if (state.state !== 'paid') return adapter.accepted;
  const outcome = await settlePaid(deps.db, deps.logger, provider, state);
  if (outcome === 'credited' || outcome === 'already_paid' || outcome === 'late') return adapter.accepted;
  return adapter.rejected(`not settled: ${outcome}`);
}

const refusedJson: NotificationAnswer = {
  status: 400,
  contentType: 'application/json',
  body: JSON.stringify({ code: 'FAIL', message: 'this provider is not configured' }),
};
const UNCONFIGURED: Record<ProviderName, NotificationAnswer> = {
  development: refusedJson,
  wechat_pay: refusedJson,
  alipay: { status: 400, contentType: 'text/plain', body: 'fail' },
};
