import { OutboundError, type Logger, type OutboundFetch } from '@muse/core';

/** The providers an order can be paid with (`development` only outside production). */
export type ProviderName = 'development' | 'wechat_pay' | 'alipay';

/** What the administrator configured through `payment-api`, secrets opened. */
export interface ProviderSettings {
  app_id?: string;
  merchant_id?: string;
  merchant_serial_no?: string;
  api_base_url?: string;
  notify_url?: string;
  return_url?: string;
  platform_public_key?: string;
  platform_public_key_id?: string;
  secrets: Record<string, string>;
}

export interface ProviderDeps {
  settings: ProviderSettings;
  outbound: OutboundFetch;
  logger: Logger;
  /** Keys the development provider's pay links (never sent anywhere). */
  developmentKey: string;
}

export interface OrderRequest {
  /** Our order number (the payment id without dashes: 32 characters, what both providers accept). */
  outTradeNo: string;
  amountCents: number;
  description: string;
  expiresAt: Date;
  notifyUrl: string;
}

/** How the client pays: a QR code's content (desktop) and/or a page to open (mobile, browser). */
export interface PayInstructions {
  code_url?: string;
  pay_url?: string;
}

/** The provider's view of an order (a query's answer or a verified notification). */
export interface ProviderOrderState {
  outTradeNo: string;
  state: 'pending' | 'paid' | 'closed' | 'failed';
  /** What the payer paid, in cents; present when paid. */
  amountCents?: number;
  /** The provider's transaction id. */
  transactionId?: string;
}

export interface RefundRequest {
  outTradeNo: string;
  /** Our refund number (the refund id without dashes). */
  outRefundNo: string;
  amountCents: number;
  totalCents: number;
  reason: string;
}

/** A notification as it arrived: what adapters verify, byte for byte. */
export interface IncomingNotification {
  headers: Record<string, string | string[] | undefined>;
  query: URLSearchParams;
  body: Buffer;
}

/** How the endpoint answers the provider, in the provider's own protocol. */
export interface NotificationAnswer {
  status: number;
  contentType: string;
  body: string;
}

export interface PaymentProviderAdapter {
  readonly name: ProviderName;
  createOrder(order: OrderRequest): Promise<PayInstructions>;
  query(outTradeNo: string): Promise<ProviderOrderState>;
  close(outTradeNo: string): Promise<void>;
  /** Asks for a refund; resolves when the provider accepted it (it may still be processing). */
  refund(request: RefundRequest): Promise<void>;
  /** Checks the notification's signature and merchant and decodes it; throws NotificationRejected. */
  verifyNotification(notification: IncomingNotification): Promise<ProviderOrderState>;
  /** The answer that tells the provider the notification was taken (it stops resending). */
  readonly accepted: NotificationAnswer;
  /** The answer to a notification that was refused (the provider resends a real one later). */
  rejected(reason: string): NotificationAnswer;
}

/** A notification that is not genuine or not for this merchant; it changes nothing. */
export class NotificationRejected extends Error {
  readonly reason: 'signature' | 'stale' | 'merchant' | 'malformed';
  constructor(reason: NotificationRejected['reason'], message: string) {
    super(message);
    this.reason = reason;
  }
}

/** The provider answered a call with an error (or an answer whose signature did not verify). */
export class ProviderCallError extends Error {
  readonly provider: ProviderName;
  readonly providerCode: string | undefined;
  constructor(provider: ProviderName, message: string, providerCode?: string) {
    super(message);
    this.provider = provider;
    this.providerCode = providerCode;
  }
}

/**
 * The provider answered with a server error (WeChat Pay 5xx `SYSTEM_ERROR`, Alipay `20000`
 * service unavailable, or a gateway's 502/503 in front of either): an outage, which decided
 * nothing. Not a ProviderCallError: the call is asked again later, never taken as a refusal.
 */
export class ProviderOutageError extends Error {
  readonly provider: ProviderName;
  constructor(provider: ProviderName, message: string) {
    super(message);
    this.provider = provider;
  }
}

/** The provider is unavailable: it answered a server error, did not answer in time, or could not be reached. */
export function isProviderUnavailable(error: unknown): boolean {
  return (
    error instanceof ProviderOutageError ||
    (error instanceof OutboundError && (error.reason === 'timeout' || error.reason === 'unreachable'))
  );
}
