import { createDecipheriv, createSign, createVerify, randomBytes, type KeyObject } from 'node:crypto';
import { NotImplementedError } from '@muse/core';
import {
  NotificationRejected,
  ProviderCallError,
  ProviderOutageError,
  type IncomingNotification,
  type PaymentProviderAdapter,
  type ProviderDeps,
  type ProviderOrderState,
} from './types.ts';
import { privateKeyOf, publicKeyOf, requiredSetting } from './keys.ts';

const PRODUCTION_BASE = 'https://api.mch.weixin.qq.com';
/** A notification older (or newer) than this is refused as a replay. */
const MAX_CLOCK_SKEW_SECONDS = 300;

/** WeChat Pay's transaction (a query's answer, a decrypted notification's resource). */
interface Transaction {
  appid?: string;
  mchid?: string;
  out_trade_no?: string;
  transaction_id?: string;
  trade_state?: string;
  amount?: { total?: number; payer_total?: number; currency?: string };
}

/**
 * WeChat Pay API v3 with node:crypto: the scheme is a few lines (an RSA-SHA256 signature over a
 * newline-joined message, AES-256-GCM for notifications), and doing it here keeps every call on
 * the outbound client. Requests are signed with the merchant's API private key
 * (`WECHATPAY2-SHA256-RSA2048`); answers and notifications are verified with the WeChat Pay
 * public key; a notification's `resource` is decrypted with the APIv3 key.
 */
export function wechatPayProvider({ settings, outbound }: ProviderDeps): PaymentProviderAdapter {
  const base = (settings.api_base_url || PRODUCTION_BASE).replace(/\/+$/, '');
  const required = (value: string | undefined, name: string) => requiredSetting(value, 'WeChat Pay', name);
  const mchid = required(settings.merchant_id, 'merchant_id');
  const appid = required(settings.app_id, 'app_id');
  const serialNo = required(settings.merchant_serial_no, 'merchant_serial_no');
  const privateKey = privateKeyOf(
    required(settings.secrets.private_key, 'secret private_key'),
    'private_key',
  );
  const apiV3Key = required(settings.secrets.api_v3_key, 'secret api_v3_key');
  if (Buffer.byteLength(apiV3Key) !== 32)
    throw new NotImplementedError("payment-api's api_v3_key must be the 32-character APIv3 key");
  const platformKey = publicKeyOf(
    required(settings.platform_public_key, 'platform_public_key'),
    'platform_public_key',
  );

  async function call(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
  ): Promise<Record<string, unknown>> {
    const text = body === undefined ? '' : JSON.stringify(body);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const nonce = randomBytes(16).toString('hex');
    const signature = createSign('RSA-SHA256')
      .update(`${method}\n${path}\n${timestamp}\n${nonce}\n${text}\n`)
      .sign(privateKey, 'base64');
    const response = await outbound(`${base}${path}`, {
      method,
      headers: {
        Accept: 'application/json',
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        Authorization:
          `WECHATPAY2-SHA256-RSA2048 mchid="${mchid}",nonce_str="${nonce}",` +
          `signature="${signature}",timestamp="${timestamp}",serial_no="${serialNo}"`,
      },
      ...(body === undefined ? {} : { body: text }),
    });
    const answer = await response.text();
    // Before the signature: a gateway's 503 in front of WeChat Pay is not signed, and decides nothing.
    if (response.status >= 500)
      throw new ProviderOutageError('wechat_pay', `${method} ${path}: HTTP ${response.status}`);
    if (!verifySignature(platformKey, settings.platform_public_key_id, response.headers, answer))
      throw new ProviderCallError(
        'wechat_pay',
        `the answer to ${method} ${path} is not signed by WeChat Pay`,
      );
    const parsed = parseAnswer(answer, `${method} ${path}`);
    if (!response.ok)
      throw new ProviderCallError(
        'wechat_pay',
        `${String(parsed.code ?? response.status)}: ${String(parsed.message ?? '')}`,
        String(parsed.code ?? ''),
      );
    return parsed;
  }

  const stateOf = (transaction: Transaction): ProviderOrderState => ({
    outTradeNo: transaction.out_trade_no ?? '',
    state: TRADE_STATES[transaction.trade_state ?? ''] ?? 'pending',
    ...(transaction.amount?.total !== undefined ? { amountCents: transaction.amount.total } : {}),
    ...(transaction.transaction_id ? { transactionId: transaction.transaction_id } : {}),
  });

  return {
    name: 'wechat_pay',
    async createOrder(order) {
      const answer = await call('POST', '/v3/pay/transactions/native', {
        appid,
        mchid,
        description: order.description,
        out_trade_no: order.outTradeNo,
        time_expire: rfc3339(order.expiresAt),
        notify_url: order.notifyUrl,
        amount: { total: order.amountCents, currency: 'CNY' },
      });
      if (typeof answer.code_url !== 'string')
        throw new ProviderCallError('wechat_pay', 'the Native order answer has no code_url');
      return { code_url: answer.code_url };
    },
    async query(outTradeNo) {
      const transaction = (await call(
        'GET',
        `/v3/pay/transactions/out-trade-no/${encodeURIComponent(outTradeNo)}?mchid=${encodeURIComponent(mchid)}`,
      )) as Transaction;
      if (!ofMerchant(transaction, mchid, appid))
        throw new ProviderCallError('wechat_pay', 'the query answered a transaction of another merchant');
      return stateOf(transaction);
    },
    async close(outTradeNo) {
      await call('POST', `/v3/pay/transactions/out-trade-no/${encodeURIComponent(outTradeNo)}/close`, {
        mchid,
      });
    },
    async refund(request) {
      const answer = await call('POST', '/v3/refund/domestic/refunds', {
        out_trade_no: request.outTradeNo,
        out_refund_no: request.outRefundNo,
        ...(request.reason ? { reason: request.reason.slice(0, 80) } : {}),
        amount: { refund: request.amountCents, total: request.totalCents, currency: 'CNY' },
      });
      if (answer.status === 'CLOSED' || answer.status === 'ABNORMAL')
        throw new ProviderCallError('wechat_pay', `the refund is ${String(answer.status)}`);
    },
    async verifyNotification({ headers, body }: IncomingNotification) {
      const text = body.toString('utf8');
      const timestamp = Number(header(headers, 'wechatpay-timestamp'));
      if (!verifySignature(platformKey, settings.platform_public_key_id, headers, text))
        throw new NotificationRejected(
          'signature',
          'the signature does not verify with the WeChat Pay public key',
        );
      if (!(Math.abs(Date.now() / 1000 - timestamp) <= MAX_CLOCK_SKEW_SECONDS))
        throw new NotificationRejected('stale', 'the notification is older than 5 minutes');
      const transaction = decryptResource(text, apiV3Key);
      if (!ofMerchant(transaction, mchid, appid))
        throw new NotificationRejected('merchant', `a transaction of merchant ${String(transaction.mchid)}`);
      return stateOf(transaction);
    },
    accepted: { status: 204, contentType: 'application/json', body: '' },
    rejected: (message) => ({
      status: 400,
      contentType: 'application/json',
      body: JSON.stringify({ code: 'FAIL', message }),
    }),
  };
}

const TRADE_STATES: Record<string, ProviderOrderState['state']> = {
  SUCCESS: 'paid',
  REFUND: 'paid',
  NOTPAY: 'pending',
  USERPAYING: 'pending',
  CLOSED: 'closed',
  REVOKED: 'closed',
  PAYERROR: 'failed',
};

type Headers = Record<string, string | string[] | undefined> | globalThis.Headers;

function header(headers: Headers, name: string): string {
  const value = headers instanceof globalThis.Headers ? headers.get(name) : headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/** `Wechatpay-Signature` over `timestamp\nnonce\nbody\n`, by the configured WeChat Pay public key. */
function verifySignature(key: KeyObject, keyId: string | undefined, headers: Headers, body: string): boolean {
  const signature = header(headers, 'wechatpay-signature');
  const serial = header(headers, 'wechatpay-serial');
  if (!signature) return false;
  if (keyId && serial !== keyId) return false;
  const message = `${header(headers, 'wechatpay-timestamp')}\n${header(headers, 'wechatpay-nonce')}\n${body}\n`;
  try {
    return createVerify('RSA-SHA256').update(message).verify(key, signature, 'base64');
  } catch {
    return false;
  }
}

/** The notification's `resource`: AEAD_AES_256_GCM with the APIv3 key, the tag in the last 16 bytes. */
function decryptResource(text: string, apiV3Key: string): Transaction {
  try {
    const { resource } = JSON.parse(text) as {
      resource: { algorithm: string; ciphertext: string; nonce: string; associated_data?: string };
    };
    if (resource.algorithm !== 'AEAD_AES_256_GCM') throw new Error(`algorithm ${resource.algorithm}`);
    const sealed = Buffer.from(resource.ciphertext, 'base64');
    const decipher = createDecipheriv(
      'aes-256-gcm',
      Buffer.from(apiV3Key, 'utf8'),
      Buffer.from(resource.nonce, 'utf8'),
    );
    decipher.setAAD(Buffer.from(resource.associated_data ?? '', 'utf8'));
    decipher.setAuthTag(sealed.subarray(sealed.length - 16));
    const plain = Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as Transaction;
  } catch (error) {
    throw new NotificationRejected(
      'malformed',
      `the resource cannot be decrypted: ${(error as Error).message}`,
    );
  }
}

const ofMerchant = (transaction: Transaction, mchid: string, appid: string): boolean =>
  transaction.mchid === mchid && transaction.appid === appid;

/** China Standard Time, as WeChat Pay writes times: 2026-11-25T22:15:00+08:00. */
function rfc3339(date: Date): string {
  const local = new Date(date.getTime() + 8 * 3600_000).toISOString().slice(0, 19);
  return `${local}+08:00`;
}

function parseAnswer(text: string, what: string): Record<string, unknown> {
  try {
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    throw new ProviderCallError('wechat_pay', `the answer to ${what} is not JSON`);
  }
}
