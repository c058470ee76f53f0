import { createSign, createVerify, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { providerOutage, type ProviderCall } from './outage.ts';

export interface FakeAlipayOrder {
  out_trade_no: string;
  total_amount: string;
  subject: string;
  notify_url: string;
  /** A precreated order exists for queries only once the QR code was scanned. */
  scanned: boolean;
  trade_status: 'WAIT_BUYER_PAY' | 'TRADE_SUCCESS' | 'TRADE_CLOSED';
  trade_no: string;
  refunded_cents: number;
}

export interface AlipayTampering {
  forgeSignature?: boolean;
  total_amount?: string;
  app_id?: string;
  seller_id?: string;
  /** Sign with the weaker RSA (SHA1) scheme instead of RSA2. */
  signType?: 'RSA';
}

/** `k=v` of the sorted non-empty parameters, joined by `&`: what both sides sign. */
const signContent = (params: Record<string, string>) =>
  Object.keys(params)
    .filter((key) => params[key] !== '')
    .sort()
    .map((key) => `${key}=${params[key]}`)
    .join('&');

/**
 * Alipay's open-API gateway as a real HTTP server, written with node:crypto on its own: each
 * request's RSA2 `sign` (over every parameter but `sign`) must verify with the application's
 * public key (error 40002 isv.invalid-signature otherwise); each answer carries a `sign` over its
 * `<method>_response` JSON with Alipay's key; notifications are forms signed the same way
 * (`sign` and `sign_type` left out of the content).
 */
export async function startFakeAlipay() {
  const app = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const alipay = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const identity = { appId: '2021004100000001', sellerId: '2088102177846880' };
  const orders = new Map<string, FakeAlipayOrder>();
  const refundRequests = new Set<string>();
  let refusedRequests = 0;

  const sign = (content: string, key: KeyObject, algorithm = 'RSA-SHA256') =>
    createSign(algorithm).update(content, 'utf8').sign(key, 'base64');

  const handle = (
    method: string,
    biz: Record<string, string>,
    params: Record<string, string>,
  ): Record<string, string> => {
    const order = orders.get(biz.out_trade_no ?? '');
    const notExist = {
      code: '40004',
      msg: 'Business Failed',
      sub_code: 'ACQ.TRADE_NOT_EXIST',
      sub_msg: '交易不存在',
    };
    switch (method) {
      case 'alipay.trade.precreate': {
        if (order && order.total_amount !== biz.total_amount)
          return {
            code: '40004',
            msg: 'Business Failed',
            sub_code: 'ACQ.CONTEXT_INCONSISTENT',
            sub_msg: '参数不一致',
          };
        const placed = order ?? {
          out_trade_no: biz.out_trade_no!,
          total_amount: biz.total_amount!,
          subject: biz.subject ?? '',
          notify_url: params.notify_url ?? '',
          scanned: false,
          trade_status: 'WAIT_BUYER_PAY' as const,
          trade_no: `2026${randomBytes(10).toString('hex')}`,
          refunded_cents: 0,
        };
        orders.set(placed.out_trade_no, placed);
        return {
          code: '10000',
          msg: 'Success',
          out_trade_no: placed.out_trade_no,
          qr_code: `https://qr.alipay.com/${placed.trade_no.slice(0, 12)}`,
        };
      }
      case 'alipay.trade.query':
        if (!order?.scanned) return notExist;
        return {
          code: '10000',
          msg: 'Success',
          out_trade_no: order.out_trade_no,
          trade_no: order.trade_no,
          trade_status: order.trade_status,
          total_amount: order.total_amount,
        };
      case 'alipay.trade.close':
        if (!order?.scanned) return notExist;
        if (order.trade_status === 'TRADE_SUCCESS')
          return {
            code: '40004',
            msg: 'Business Failed',
            sub_code: 'ACQ.TRADE_STATUS_ERROR',
            sub_msg: '交易状态不合法',
          };
        order.trade_status = 'TRADE_CLOSED';
        return { code: '10000', msg: 'Success', out_trade_no: order.out_trade_no, trade_no: order.trade_no };
      case 'alipay.trade.refund': {
        if (!order || order.trade_status !== 'TRADE_SUCCESS') return notExist;
        const refund = Math.round(Number(biz.refund_amount) * 100);
        const total = Math.round(Number(order.total_amount) * 100);
        if (!refundRequests.has(biz.out_request_no ?? '')) {
          if (order.refunded_cents + refund > total)
            return {
              code: '40004',
              msg: 'Business Failed',
              sub_code: 'ACQ.REFUND_AMT_NOT_EQUAL_TOTAL',
              sub_msg: '退款金额超限',
            };
          refundRequests.add(biz.out_request_no ?? '');
          order.refunded_cents += refund;
        }
        return {
          code: '10000',
          msg: 'Success',
          out_trade_no: order.out_trade_no,
          refund_fee: biz.refund_amount ?? '',
          fund_change: 'Y',
        };
      }
      default:
        return { code: '40002', msg: 'Invalid Arguments', sub_code: 'isv.invalid-method', sub_msg: method };
    }
  };

  const outage = providerOutage();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const params = {
        ...Object.fromEntries(new URL(req.url!, 'http://fake').searchParams),
        ...Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))),
      };
      const method = params.method ?? '';
      if (outage.intercept(res, CALLS[method] ?? 'other')) return;
      const { sign: signature = '', ...signed } = params;
      const genuine =
        params.app_id === identity.appId &&
        params.sign_type === 'RSA2' &&
        createVerify('RSA-SHA256')
          .update(signContent(signed), 'utf8')
          .verify(app.publicKey, signature, 'base64');
      let answer: Record<string, string>;
      if (!genuine) {
        refusedRequests++;
        answer = {
          code: '40002',
          msg: 'Invalid Arguments',
          sub_code: 'isv.invalid-signature',
          sub_msg: '验签出错',
        };
      } else
        answer = handle(method, JSON.parse(params.biz_content ?? '{}') as Record<string, string>, params);
      const json = JSON.stringify(answer);
      const key = `${method.replaceAll('.', '_')}_response`;
      res.writeHead(200, { 'Content-Type': 'application/json;charset=utf-8' });
      res.end(`{"${key}":${json},"sign":"${sign(json, alipay.privateKey)}"}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/gateway.do`;

  const notification = (outTradeNo: string, tampering: AlipayTampering = {}) => {
    const order = orders.get(outTradeNo);
    if (!order) throw new Error(`the fake has no order ${outTradeNo}`);
    const fields: Record<string, string> = {
      notify_time: '2026-11-25 22:00:00',
      notify_type: 'trade_status_sync',
      notify_id: randomBytes(16).toString('hex'),
      app_id: tampering.app_id ?? identity.appId,
      charset: 'utf-8',
      version: '1.0',
      trade_no: order.trade_no,
      out_trade_no: order.out_trade_no,
      trade_status: order.trade_status,
      total_amount: tampering.total_amount ?? order.total_amount,
      receipt_amount: order.total_amount,
      seller_id: tampering.seller_id ?? identity.sellerId,
      buyer_id: '2088002656718920',
      subject: order.subject,
      gmt_payment: '2026-11-25 21:59:58',
    };
    const signType = tampering.signType ?? 'RSA2';
    const key = tampering.forgeSignature ? stranger.privateKey : alipay.privateKey;
    const signature = sign(signContent(fields), key, signType === 'RSA' ? 'RSA-SHA1' : 'RSA-SHA256');
    return {
      url: order.notify_url,
      body: new URLSearchParams({ ...fields, sign_type: signType, sign: signature }).toString(),
    };
  };

  return {
    url,
    identity,
    orders,
    get refusedRequests() {
      return refusedRequests;
    },
    settings: () => ({
      provider: 'alipay',
      enabled: true,
      api_base_url: url,
      app_id: identity.appId,
      merchant_id: identity.sellerId,
      platform_public_key: alipay.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
      secrets: { private_key: app.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString() },
    }),
    /** The payer scans the QR code and pays. */
    pay(outTradeNo: string) {
      const order = orders.get(outTradeNo);
      if (!order) throw new Error(`the fake has no order ${outTradeNo}`);
      order.scanned = true;
      order.trade_status = 'TRADE_SUCCESS';
    },
    notification,
    /** Takes the provider down (503 or no answer to every call) and back up. */
    outage,
    async send(message: ReturnType<typeof notification>) {
      const response = await fetch(message.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded; charset=utf-8' },
        body: message.body,
      });
      return { status: response.status, body: await response.text() };
    },
    close: () => {
      outage.end();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type FakeAlipay = Awaited<ReturnType<typeof startFakeAlipay>>;

const CALLS: Record<string, ProviderCall> = {
  'alipay.trade.precreate': 'order',
  'alipay.trade.query': 'query',
  'alipay.trade.close': 'close',
  'alipay.trade.refund': 'refund',
};
