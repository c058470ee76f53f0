import { createRequire } from 'node:module';
import type * as Alipay from 'alipay-sdk';
import { NotImplementedError } from '@muse/core';
import { privateKeyOf, publicKeyOf, requiredSetting } from './keys.ts';
import {
  NotificationRejected,
  ProviderCallError,
  ProviderOutageError,
  type PaymentProviderAdapter,
  type ProviderDeps,
  type ProviderOrderState,
} from './types.ts';

const PRODUCTION_GATEWAY = 'https://openapi.alipay.com/gateway.do';
const require = createRequire(import.meta.url);

/**
 * Alipay's open API (RSA2). Alipay's own `alipay-sdk` signs requests (`sdkExecute`, `pageExecute`)
 * and verifies answers (`checkResponseSign`) and notifications (`checkNotifySignV2`); the calls
 * themselves go through the outbound client (the SDK's `exec` would use its own HTTP client,
 * which the address policy cannot see). Precreate gives the QR `code_url`; page pay the `pay_url`.
 */
export function alipayProvider({ settings, outbound }: ProviderDeps): PaymentProviderAdapter {
  const required = (value: string | undefined, name: string) => requiredSetting(value, 'Alipay', name);
  const appId = required(settings.app_id, 'app_id');
  const gateway = settings.api_base_url || PRODUCTION_GATEWAY;
  const privateKey = privateKeyOf(
    required(settings.secrets.private_key, 'secret private_key'),
    'private_key',
  );
  const publicKey = publicKeyOf(
    required(settings.platform_public_key, 'platform_public_key'),
    'platform_public_key',
  );
  let sdk: Alipay.AlipaySdk;
  try {
    // Loaded at the first Alipay set-up: an API process that never uses Alipay does not hold the
    // SDK and its dependencies (about 5 MB of heap).
    const { AlipaySdk } = require('alipay-sdk') as typeof Alipay;
    sdk = new AlipaySdk({
      appId,
      gateway,
      signType: 'RSA2',
      keyType: 'PKCS8',
      privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      alipayPublicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    });
  } catch (error) {
    throw new NotImplementedError(`Alipay cannot be set up: ${(error as Error).message}`);
  }

  /** One open-API call: signed form POSTed to the gateway, the answer's `sign` verified. */
  async function call(
    method: string,
    bizContent: Record<string, unknown>,
    extra: Record<string, string> = {},
  ): Promise<Record<string, string>> {
    const form = sdk.sdkExecute(method, { bizContent, ...extra }, { bizContentAutoSnakeCase: false });
    const response = await outbound(gateway, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded;charset=utf-8',
        Accept: 'application/json',
      },
      body: form,
    });
    const raw = await response.text();
    if (response.status >= 500) throw new ProviderOutageError('alipay', `${method}: HTTP ${response.status}`);
    if (!response.ok) throw new ProviderCallError('alipay', `${method}: HTTP ${response.status}`);
    const responseKey = `${method.replaceAll('.', '_')}_response`;
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      throw new ProviderCallError('alipay', `${method}: the answer is not JSON`);
    }
    const answer = (parsed[responseKey] ?? parsed.error_response) as Record<string, string> | undefined;
    if (!answer) throw new ProviderCallError('alipay', `${method}: the answer has no ${responseKey}`);
    // 20000 is Alipay's "service unavailable": an outage, whatever the signature.
    if (answer.code === '20000')
      throw new ProviderOutageError(
        'alipay',
        `${method}: 20000 ${answer.sub_code ?? ''} ${answer.msg ?? ''}`.trim(),
      );
    try {
      sdk.checkResponseSign(
        raw,
        parsed[responseKey] ? responseKey : 'error_response',
        String(parsed.sign ?? ''),
        '',
      );
    } catch {
      throw new ProviderCallError('alipay', `${method}: the answer is not signed by Alipay`);
    }
    return answer;
  }

  const failure = (method: string, answer: Record<string, string>) =>
    new ProviderCallError(
      'alipay',
      `${method}: ${answer.code} ${answer.sub_code ?? ''} ${answer.sub_msg ?? answer.msg ?? ''}`.trim(),
      answer.sub_code ?? answer.code,
    );

  return {
    name: 'alipay',
    async createOrder(order) {
      const bizContent = {
        out_trade_no: order.outTradeNo,
        total_amount: yuan(order.amountCents),
        subject: order.description,
        time_expire: chinaTime(order.expiresAt),
      };
      const answer = await call('alipay.trade.precreate', bizContent, { notifyUrl: order.notifyUrl });
      if (answer.code !== '10000' || !answer.qr_code) throw failure('alipay.trade.precreate', answer);
      const payUrl = sdk.pageExecute('alipay.trade.page.pay', 'GET', {
        bizContent: { ...bizContent, product_code: 'FAST_INSTANT_TRADE_PAY' },
        notifyUrl: order.notifyUrl,
        ...(settings.return_url ? { returnUrl: settings.return_url } : {}),
      });
      return { code_url: answer.qr_code, pay_url: payUrl };
    },
    async query(outTradeNo) {
      const answer = await call('alipay.trade.query', { out_trade_no: outTradeNo });
      // A precreated order exists at Alipay only once it was scanned.
      if (answer.sub_code === 'ACQ.TRADE_NOT_EXIST') return { outTradeNo, state: 'pending' };
      if (answer.code !== '10000') throw failure('alipay.trade.query', answer);
      return stateOf(answer);
    },
    async close(outTradeNo) {
      const answer = await call('alipay.trade.close', { out_trade_no: outTradeNo });
      if (answer.code !== '10000' && answer.sub_code !== 'ACQ.TRADE_NOT_EXIST')
        throw failure('alipay.trade.close', answer);
    },
    async refund(request) {
      const answer = await call('alipay.trade.refund', {
        out_trade_no: request.outTradeNo,
        refund_amount: yuan(request.amountCents),
        out_request_no: request.outRefundNo,
        ...(request.reason ? { refund_reason: request.reason.slice(0, 256) } : {}),
      });
      if (answer.code !== '10000') throw failure('alipay.trade.refund', answer);
    },
    async verifyNotification({ body }) {
      const form = Object.fromEntries(new URLSearchParams(body.toString('utf8')));
      if (form.sign_type !== 'RSA2' || !sdk.checkNotifySignV2(form))
        throw new NotificationRejected('signature', "the sign does not verify with Alipay's public key");
      if (form.app_id !== appId || (settings.merchant_id && form.seller_id !== settings.merchant_id))
        throw new NotificationRejected(
          'merchant',
          `a notification for app ${form.app_id}, seller ${form.seller_id}`,
        );
      return stateOf(form);
    },
    accepted: { status: 200, contentType: 'text/plain', body: 'success' },
    rejected: () => ({ status: 400, contentType: 'text/plain', body: 'fail' }),
  };
}

function stateOf(trade: Record<string, string | undefined>): ProviderOrderState {
  const amountCents = cents(trade.total_amount);
  return {
    outTradeNo: trade.out_trade_no ?? '',
    state: TRADE_STATES[trade.trade_status ?? ''] ?? 'pending',
    ...(amountCents !== undefined ? { amountCents } : {}),
    ...(trade.trade_no ? { transactionId: trade.trade_no } : {}),
  };
}

const TRADE_STATES: Record<string, ProviderOrderState['state']> = {
  WAIT_BUYER_PAY: 'pending',
  TRADE_SUCCESS: 'paid',
  TRADE_FINISHED: 'paid',
  TRADE_CLOSED: 'closed',
};

/** 990 → "9.90": integer arithmetic, no floating point. */
function yuan(amountCents: number): string {
  return `${Math.floor(amountCents / 100)}.${String(amountCents % 100).padStart(2, '0')}`;
}

/** "9.90" → 990; undefined for anything that is not an amount. */
function cents(amount: string | undefined): number | undefined {
  const match = /^(\d{1,10})(?:\.(\d{1,2}))?$/.exec(amount ?? '');
  if (!match) return undefined;
  return Number(match[1]) * 100 + Number((match[2] ?? '0').padEnd(2, '0'));
}

/** Alipay's times: "yyyy-MM-dd HH:mm:ss" in China Standard Time. */
function chinaTime(date: Date): string {
  return new Date(date.getTime() + 8 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');
}
