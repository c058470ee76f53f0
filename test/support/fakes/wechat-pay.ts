import {
  createCipheriv,
  createSign,
  createVerify,
  generateKeyPairSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { providerOutage, type ProviderCall } from './outage.ts';

/** An order as the fake keeps it. */
export interface FakeWechatOrder {
  appid: string;
  mchid: string;
  out_trade_no: string;
  description: string;
  notify_url: string;
  total: number;
  trade_state: 'NOTPAY' | 'SUCCESS' | 'CLOSED' | 'REFUND';
  transaction_id: string;
  refunded: number;
}

export interface NotificationTampering {
  /** Sign with a key that is not WeChat Pay's. */
  forgeSignature?: boolean;
  /** Report this amount instead of the order's. */
  amount?: number;
  /** Report this merchant instead of ours. */
  mchid?: string;
  /** Seconds to shift the timestamp by (a replay of an old notification: -3600). */
  ageSeconds?: number;
}

/**
 * WeChat Pay API v3 as a real HTTP server, written against the protocol with node:crypto on its
 * own: it checks each request's `WECHATPAY2-SHA256-RSA2048` Authorization with the merchant's
 * public key (401 SIGN_ERROR otherwise), signs every answer with its platform key, and sends
 * notifications whose `resource` is sealed with the APIv3 key (AES-256-GCM).
 */
export async function startFakeWechatPay() {
  const merchant = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const platform = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const identity = {
    mchid: '1900000109',
    appid: 'wxd678efh567hg6787',
    merchantSerial: '5157F09EFDC096DE15EBE81A47057A7232F1B8E1',
    platformKeyId: 'PUB_KEY_ID_0114232134912410000000000000',
    apiV3Key: randomBytes(16).toString('hex'),
  };
  const orders = new Map<string, FakeWechatOrder>();
  const refunds: { out_refund_no: string; out_trade_no: string; refund: number }[] = [];
  let refusedRequests = 0;
  let queries = 0;
  /** Refund requests still to take without answering. */
  let unansweredRefunds = 0;
  /** While set, order queries are held unanswered until it resolves. */
  let held: Promise<void> | undefined;
  const outage = providerOutage();

  const signedHeaders = (body: string, key: KeyObject = platform.privateKey, timestamp = now()) => {
    const nonce = randomBytes(16).toString('hex');
    const signature = createSign('RSA-SHA256')
      .update(`${timestamp}\n${nonce}\n${body}\n`)
      .sign(key, 'base64');
    return {
      'Wechatpay-Timestamp': String(timestamp),
      'Wechatpay-Nonce': nonce,
      'Wechatpay-Serial': identity.platformKeyId,
      'Wechatpay-Signature': signature,
    };
  };

  const authorized = (method: string, url: string, authorization: string, body: string): boolean => {
    const match = /^WECHATPAY2-SHA256-RSA2048 (.+)$/.exec(authorization);
    if (!match) return false;
    const fields = Object.fromEntries(
      [...match[1]!.matchAll(/(\w+)="([^"]*)"/g)].map(([, key, value]) => [key!, value!]),
    );
    if (fields.mchid !== identity.mchid || fields.serial_no !== identity.merchantSerial) return false;
    if (Math.abs(now() - Number(fields.timestamp)) > 300) return false;
    const message = `${method}\n${url}\n${fields.timestamp}\n${fields.nonce_str}\n${body}\n`;
    return createVerify('RSA-SHA256')
      .update(message)
      .verify(merchant.publicKey, fields.signature ?? '', 'base64');
  };

  const transactionOf = (order: FakeWechatOrder, overrides: NotificationTampering = {}) => ({
    appid: order.appid,
    mchid: overrides.mchid ?? order.mchid,
    out_trade_no: order.out_trade_no,
    transaction_id: order.transaction_id,
    trade_type: 'NATIVE',
    trade_state: order.trade_state,
    trade_state_desc: order.trade_state,
    amount: {
      total: overrides.amount ?? order.total,
      payer_total: overrides.amount ?? order.total,
      currency: 'CNY',
      payer_currency: 'CNY',
    },
  });

  const handle = (method: string, url: string, body: string): { status: number; body?: unknown } => {
    const path = new URL(url, 'http://fake').pathname;
    const json = body ? (JSON.parse(body) as Record<string, unknown>) : {};
    if (method === 'POST' && path === '/v3/pay/transactions/native') {
      if (json.mchid !== identity.mchid || json.appid !== identity.appid)
        return { status: 400, body: { code: 'INVALID_REQUEST', message: 'appid and mchid do not match' } };
      const amount = json.amount as { total: number; currency: string };
      const existing = orders.get(String(json.out_trade_no));
      if (existing && existing.total !== amount.total)
        return { status: 400, body: { code: 'INVALID_REQUEST', message: 'out_trade_no reused' } };
      const order = existing ?? {
        appid: identity.appid,
        mchid: identity.mchid,
        out_trade_no: String(json.out_trade_no),
        description: String(json.description),
        notify_url: String(json.notify_url),
        total: amount.total,
        trade_state: 'NOTPAY' as const,
        transaction_id: `4200${randomBytes(12).toString('hex')}`,
        refunded: 0,
      };
      orders.set(order.out_trade_no, order);
      return {
        status: 200,
        body: { code_url: `weixin://wxpay/bizpayurl?pr=${order.out_trade_no.slice(0, 8)}` },
      };
    }
    const queried = /^\/v3\/pay\/transactions\/out-trade-no\/([^/]+)$/.exec(path);
    if (method === 'GET' && queried) {
      const order = orders.get(decodeURIComponent(queried[1]!));
      if (!order) return { status: 404, body: { code: 'ORDER_NOT_EXIST', message: 'no such order' } };
      return { status: 200, body: transactionOf(order) };
    }
    const closing = /^\/v3\/pay\/transactions\/out-trade-no\/([^/]+)\/close$/.exec(path);
    if (method === 'POST' && closing) {
      const order = orders.get(decodeURIComponent(closing[1]!));
      if (!order) return { status: 404, body: { code: 'ORDER_NOT_EXIST', message: 'no such order' } };
      if (order.trade_state === 'SUCCESS' || order.trade_state === 'REFUND')
        return { status: 400, body: { code: 'ORDERPAID', message: 'the order is paid' } };
      order.trade_state = 'CLOSED';
      return { status: 204 };
    }
    if (method === 'POST' && path === '/v3/refund/domestic/refunds') {
      const order = orders.get(String(json.out_trade_no));
      const amount = json.amount as { refund: number; total: number };
      if (!order || (order.trade_state !== 'SUCCESS' && order.trade_state !== 'REFUND'))
        return { status: 404, body: { code: 'RESOURCE_NOT_EXISTS', message: 'no paid order' } };
      // The same out_refund_no again is the same refund (answered as it is), as WeChat Pay does.
      const earlier = refunds.find((refund) => refund.out_refund_no === json.out_refund_no);
      if (!earlier && (amount.total !== order.total || order.refunded + amount.refund > order.total))
        return { status: 400, body: { code: 'INVALID_REQUEST', message: 'refund exceeds the order' } };
      if (!earlier) {
        refunds.push({
          out_refund_no: String(json.out_refund_no),
          out_trade_no: order.out_trade_no,
          refund: amount.refund,
        });
        order.refunded += amount.refund;
        order.trade_state = 'REFUND';
      }
      return {
        status: 200,
        body: {
          refund_id: `5030${randomBytes(8).toString('hex')}`,
          out_refund_no: json.out_refund_no,
          out_trade_no: order.out_trade_no,
          status: 'PROCESSING',
          amount: { refund: amount.refund, total: order.total, currency: 'CNY' },
        },
      };
    }
    return { status: 404, body: { code: 'NOT_FOUND', message: `${method} ${path}` } };
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      if (outage.intercept(res, callOf(req.method!, req.url!))) return;
      const body = Buffer.concat(chunks).toString('utf8');
      if (req.method === 'GET' && req.url!.startsWith('/v3/pay/transactions/out-trade-no/')) {
        queries++;
        await held;
      }
      if (req.url === '/v3/refund/domestic/refunds' && unansweredRefunds > 0) {
        // Takes the refund, then the answer is lost (the connection drops): the caller cannot know.
        unansweredRefunds--;
        if (authorized(req.method!, req.url, req.headers.authorization ?? '', body))
          handle(req.method!, req.url, body);
        req.socket.destroy();
        return;
      }
      let answer: { status: number; body?: unknown };
      if (!authorized(req.method!, req.url!, req.headers.authorization ?? '', body)) {
        refusedRequests++;
        answer = { status: 401, body: { code: 'SIGN_ERROR', message: 'signature does not verify' } };
      } else answer = handle(req.method!, req.url!, body);
      const text = answer.body === undefined ? '' : JSON.stringify(answer.body);
      res.writeHead(answer.status, {
        ...(text ? { 'Content-Type': 'application/json' } : {}),
        ...signedHeaders(text),
      });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  /** The notification WeChat Pay would send about `order` now, with any tampering asked for. */
  const notification = (outTradeNo: string, tampering: NotificationTampering = {}) => {
    const order = orders.get(outTradeNo);
    if (!order) throw new Error(`the fake has no order ${outTradeNo}`);
    const nonce = randomBytes(6).toString('hex');
    const associatedData = 'transaction';
    const cipher = createCipheriv(
      'aes-256-gcm',
      Buffer.from(identity.apiV3Key, 'utf8'),
      Buffer.from(nonce, 'utf8'),
    );
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const sealed = Buffer.concat([
      cipher.update(JSON.stringify(transactionOf(order, tampering)), 'utf8'),
      cipher.final(),
      cipher.getAuthTag(),
    ]);
    const body = JSON.stringify({
      id: randomBytes(8).toString('hex'),
      create_time: new Date().toISOString(),
      resource_type: 'encrypt-resource',
      event_type: 'TRANSACTION.SUCCESS',
      summary: '支付成功',
      resource: {
        original_type: 'transaction',
        algorithm: 'AEAD_AES_256_GCM',
        ciphertext: sealed.toString('base64'),
        associated_data: associatedData,
        nonce,
      },
    });
    const key = tampering.forgeSignature ? stranger.privateKey : platform.privateKey;
    const headers = {
      'Content-Type': 'application/json',
      ...signedHeaders(body, key, now() + (tampering.ageSeconds ?? 0)),
    };
    return { url: order.notify_url, headers, body };
  };

  return {
    url,
    identity,
    orders,
    refunds,
    get refusedRequests() {
      return refusedRequests;
    },
    /** Order queries received so far. */
    get queries() {
      return queries;
    },
    /** Holds every order query unanswered until the returned function is called. */
    holdQueries(): () => void {
      let release = () => {};
      held = new Promise<void>((resolve) => (release = resolve));
      return () => {
        held = undefined;
        release();
      };
    },
    /** The next `count` refunds are made but their answers are lost. */
    loseRefundAnswers(count: number) {
      unansweredRefunds = count;
    },
    /** The `payment-api` settings a merchant would enter for this fake. */
    settings: (notifyUrl?: string) => ({
      provider: 'wechat_pay',
      enabled: true,
      api_base_url: url,
      app_id: identity.appid,
      merchant_id: identity.mchid,
      merchant_serial_no: identity.merchantSerial,
      platform_public_key_id: identity.platformKeyId,
      platform_public_key: platform.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      ...(notifyUrl ? { notify_url: notifyUrl } : {}),
      secrets: {
        private_key: merchant.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        api_v3_key: identity.apiV3Key,
      },
    }),
    /** The payer scans and pays: the order is SUCCESS (a query now says so). */
    pay(outTradeNo: string) {
      const order = orders.get(outTradeNo);
      if (!order) throw new Error(`the fake has no order ${outTradeNo}`);
      order.trade_state = 'SUCCESS';
    },
    notification,
    /** Takes the provider down (503 or no answer to every call) and back up. */
    outage,
    /** Sends a notification (as built by `notification`) and answers Muse's status and body. */
    async send(message: ReturnType<typeof notification>) {
      const response = await fetch(message.url, {
        method: 'POST',
        headers: message.headers,
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

export type FakeWechatPay = Awaited<ReturnType<typeof startFakeWechatPay>>;

const now = () => Math.floor(Date.now() / 1000);

function callOf(method: string, url: string): ProviderCall {
  const path = new URL(url, 'http://fake').pathname;
  if (path === '/v3/pay/transactions/native') return 'order';
  if (path === '/v3/refund/domestic/refunds') return 'refund';
  if (path.endsWith('/close')) return 'close';
  return method === 'GET' && path.startsWith('/v3/pay/transactions/out-trade-no/') ? 'query' : 'other';
}
