import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { startFakeServer, type FakeServer } from './http-fake.ts';

/**
 * Fakes of the code providers, each checking requests the way the provider documents it,
 * with signature checks written independently of the adapters under test.
 */

export interface ReceivedCode {
  phone: string;
  code: string;
  code_type: string;
}

export interface CodeReceiver extends FakeServer {
  codes: ReceivedCode[];
  /** The last code received for `phone`. */
  codeFor(phone: string): string | undefined;
  /** When true the fake refuses every delivery the way the provider reports a failure. */
  failing: boolean;
}

/** Adds the received-codes view and a live `failing` switch (read by the handler at each request). */
function receiver(server: FakeServer, codes: ReceivedCode[], state: { failing: boolean }): CodeReceiver {
  const fake = server as CodeReceiver;
  fake.codes = codes;
  fake.codeFor = (phone) => codes.findLast((entry) => entry.phone === phone)?.code;
  Object.defineProperty(fake, 'failing', {
    get: () => state.failing,
    set: (value: boolean) => (state.failing = value),
  });
  return fake;
}

/** Our generic webhook: checks `X-Muse-Signature: sha256=HMAC(secret, "<ts>.<body>")` and a fresh timestamp. */
export async function startWebhookReceiver(secret: string): Promise<CodeReceiver> {
  const codes: ReceivedCode[] = [];
  const state = { failing: false };
  const server = await startFakeServer(({ method, headers, body }) => {
    if (state.failing) return { status: 503, body: { error: 'unavailable' } };
    const timestamp = String(headers['x-muse-timestamp']);
    const expected = Buffer.from(
      `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`,
    );
    const given = Buffer.from(String(headers['x-muse-signature']));
    const fresh = Math.abs(Date.now() / 1000 - Number(timestamp)) < 300;
    if (
      method !== 'POST' ||
      given.length !== expected.length ||
      !timingSafeEqual(given, expected) ||
      !fresh
    ) {
      return { status: 401, body: { error: 'bad signature' } };
    }
    codes.push(JSON.parse(body) as ReceivedCode);
    return { status: 200, body: { ok: true } };
  });
  return receiver(server, codes, state);
}

/** RFC 3986 unreserved characters stay, every other byte becomes %XX (Aliyun's POP encoding). */
function popEncode(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * Aliyun RPC API (SendSms on dysmsapi, SingleCallByTts on dyvmsapi): form-encoded POST, common
 * parameters, HMAC-SHA1 signature over the canonicalized query, fresh timestamp, unused nonce.
 */
export async function startAliyunFake(options: {
  accessKeyId: string;
  accessKeySecret: string;
  action: string;
}) {
  const codes: ReceivedCode[] = [];
  const nonces = new Set<string>();
  const state = { failing: false };
  const server = await startFakeServer(({ method, headers, body }) => {
    const params = Object.fromEntries(new URLSearchParams(body));
    const problem = (() => {
      if (
        method !== 'POST' ||
        !String(headers['content-type']).startsWith('application/x-www-form-urlencoded')
      ) {
        return 'InvalidRequest';
      }
      for (const name of [
        'AccessKeyId',
        'Action',
        'Format',
        'RegionId',
        'SignatureMethod',
        'SignatureNonce',
        'SignatureVersion',
        'Timestamp',
        'Version',
        'Signature',
      ]) {
        if (!params[name]) return `MissingParameter.${name}`;
      }
      if (params.AccessKeyId !== options.accessKeyId) return 'InvalidAccessKeyId.NotFound';
      if (params.SignatureMethod !== 'HMAC-SHA1' || params.SignatureVersion !== '1.0')
        return 'InvalidSignatureMethod';
      if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(params.Timestamp!)) return 'InvalidTimeStamp.Format';
      if (Math.abs(Date.parse(params.Timestamp!) - Date.now()) > 15 * 60_000)
        return 'InvalidTimeStamp.Expired';
      if (nonces.has(params.SignatureNonce!)) return 'SignatureNonceUsed';
      const { Signature: signature, ...signed } = params;
      const query = Object.keys(signed)
        .sort()
        .map((key) => `${popEncode(key)}=${popEncode(signed[key]!)}`)
        .join('&');
      const expected = createHmac('sha1', `${options.accessKeySecret}&`)
        .update(`POST&${popEncode('/')}&${popEncode(query)}`)
        .digest('base64');
      if (expected !== signature) return 'SignatureDoesNotMatch';
      if (params.Action !== options.action) return 'InvalidAction.NotFound';
      return undefined;
    })();
    if (problem) return { status: 400, body: { Code: problem, Message: problem, RequestId: 'fake' } };
    nonces.add(params.SignatureNonce!);
    if (state.failing)
      return {
        status: 200,
        body: { Code: 'isv.BUSINESS_LIMIT_CONTROL', Message: 'limited', RequestId: 'fake' },
      };
    const phone = params.PhoneNumbers ?? params.CalledNumber!;
    const templateParams = JSON.parse(params.TemplateParam ?? params.TtsParam ?? '{}') as Record<
      string,
      string
    >;
    codes.push({
      phone,
      code: templateParams.code!,
      code_type: params.Action === 'SendSms' ? 'sms' : 'voice',
    });
    return { status: 200, body: { Code: 'OK', Message: 'OK', RequestId: 'fake', BizId: 'fake-biz' } };
  });
  return Object.assign(receiver(server, codes, state), {
    params: () => server.requests.map((r) => Object.fromEntries(new URLSearchParams(r.body))),
  });
}

/**
 * Tencent Cloud API 3.0 (sms SendSms, vms SendTtsVoice): JSON POST with X-TC-* headers and a
 * TC3-HMAC-SHA256 Authorization over the canonical request; errors come back as 200 + Response.Error.
 */
export async function startTencentFake(options: {
  secretId: string;
  secretKey: string;
  service: string;
  action: string;
  version: string;
}) {
  const codes: ReceivedCode[] = [];
  const state = { failing: false };
  const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');
  const server = await startFakeServer(({ method, url, headers, body }) => {
    const error = (code: string) => ({
      status: 200,
      body: { Response: { Error: { Code: code, Message: code }, RequestId: 'fake' } },
    });
    const auth =
      /^TC3-HMAC-SHA256 Credential=([^/]+)\/(\d{4}-\d{2}-\d{2})\/([^/]+)\/tc3_request, SignedHeaders=([a-z;-]+), Signature=([0-9a-f]{64})$/.exec(
        String(headers.authorization),
      );
    if (!auth) return error('AuthFailure.InvalidAuthorization');
    const [, secretId, date, service, signedHeaders, signature] = auth;
    const timestamp = Number(headers['x-tc-timestamp']);
    if (secretId !== options.secretId) return error('AuthFailure.SecretIdNotFound');
    if (service !== options.service) return error('AuthFailure.InvalidAuthorization');
    if (Math.abs(Date.now() / 1000 - timestamp) > 300) return error('AuthFailure.SignatureExpire');
    if (new Date(timestamp * 1000).toISOString().slice(0, 10) !== date)
      return error('AuthFailure.InvalidAuthorization');
    const headerNames = signedHeaders!.split(';');
    if (!headerNames.includes('content-type') || !headerNames.includes('host'))
      return error('AuthFailure.InvalidAuthorization');
    const canonicalHeaders = headerNames
      .map((name) => `${name}:${String(headers[name]).trim().toLowerCase()}\n`)
      .join('');
    const canonicalRequest = `${method}\n${url.split('?')[0]}\n${url.split('?')[1] ?? ''}\n${canonicalHeaders}\n${signedHeaders}\n${sha256(body)}`;
    const stringToSign = `TC3-HMAC-SHA256\n${timestamp}\n${date}/${service}/tc3_request\n${sha256(canonicalRequest)}`;
    let key = createHmac('sha256', `TC3${options.secretKey}`).update(date!).digest();
    key = createHmac('sha256', key).update(service!).digest();
    key = createHmac('sha256', key).update('tc3_request').digest();
    if (createHmac('sha256', key).update(stringToSign).digest('hex') !== signature)
      return error('AuthFailure.SignatureFailure');
    if (
      headers['x-tc-action'] !== options.action ||
      headers['x-tc-version'] !== options.version ||
      !headers['x-tc-region']
    ) {
      return error('InvalidAction');
    }
    if (state.failing) return error('LimitExceeded.PhoneNumberDailyLimit');
    const payload = JSON.parse(body) as {
      PhoneNumberSet?: string[];
      CalledNumber?: string;
      TemplateParamSet: string[];
    };
    const phone = (payload.PhoneNumberSet?.[0] ?? payload.CalledNumber!).replace(/^\+86/, '');
    codes.push({
      phone,
      code: payload.TemplateParamSet[0]!,
      code_type: options.service === 'sms' ? 'sms' : 'voice',
    });
    const response =
      options.service === 'sms'
        ? {
            SendStatusSet: [
              { Code: 'Ok', Message: 'send success', PhoneNumber: `+86${phone}`, SerialNo: 'fake' },
            ],
          }
        : { SendStatus: { CallId: 'fake-call', SessionContext: '' } };
    return { status: 200, body: { Response: { ...response, RequestId: 'fake' } } };
  });
  return Object.assign(receiver(server, codes, state), {
    payloads: () => server.requests.map((r) => JSON.parse(r.body) as Record<string, unknown>),
  });
}
