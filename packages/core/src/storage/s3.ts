import { createHash, createHmac } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { NotFoundError } from '../errors.ts';
import type { FileStorage } from './storage.ts';

export interface S3Options {
  /** e.g. https://s3.eu-central-1.amazonaws.com or http://minio:9000; objects are addressed path-style. */
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  prefix?: string;
  fetch?: typeof fetch;
}

/**
 * File contents in an S3-compatible bucket, over plain HTTP requests signed with AWS
 * Signature Version 4 (what AWS S3, MinIO, R2 and Ceph all accept). A body is buffered before
 * upload so its hash can be signed: uploads are bounded by max_upload_bytes.
 */
export class S3Storage implements FileStorage {
  private readonly options: S3Options;
  private readonly fetch: typeof fetch;

  constructor(options: S3Options) {
    this.options = { ...options, endpoint: options.endpoint.replace(/\/+$/, '') };
    this.fetch = options.fetch ?? fetch;
  }

  async put(key: string, body: Buffer | Readable): Promise<{ size: number }> {
    const bytes = Buffer.isBuffer(body) ? body : await buffer(body);
    const response = await this.request('PUT', key, bytes);
    await expectOk(response, key);
    return { size: bytes.length };
  }

  async get(key: string): Promise<Readable> {
    const response = await this.request('GET', key);
    if (response.status === 404) throw new NotFoundError('The file has no stored content');
    await expectOk(response, key);
    return Readable.fromWeb(response.body! as never);
  }

  async delete(key: string): Promise<void> {
    const response = await this.request('DELETE', key);
    if (response.status !== 404) await expectOk(response, key);
  }

  private request(method: 'GET' | 'PUT' | 'DELETE', key: string, body?: Buffer): Promise<Response> {
    const { endpoint, bucket, prefix } = this.options;
    const path = `/${bucket}/${`${prefix ?? ''}${key}`.split('/').map(encodeRfc3986).join('/')}`;
    const url = new URL(`${endpoint}${path}`);
    const headers = signV4(this.options, { method, url, body: body ?? Buffer.alloc(0) });
    return this.fetch(url, { method, headers, ...(body ? { body } : {}) });
  }
}

async function expectOk(response: Response, key: string): Promise<void> {
  if (response.ok) return;
  const text = await response.text().catch(() => '');
  throw new Error(`S3 ${response.status} for ${key}: ${text.slice(0, 300)}`);
}

function encodeRfc3986(segment: string): string {
  return encodeURIComponent(segment).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

/** The headers of a SigV4-signed request (host, x-amz-date, x-amz-content-sha256, authorization). */
export function signV4(
  credentials: Pick<S3Options, 'region' | 'accessKeyId' | 'secretAccessKey'>,
  request: { method: string; url: URL; body: Buffer },
  now = new Date(),
): Record<string, string> {
  const amzDate = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const day = amzDate.slice(0, 8);
  const payloadHash = sha256(request.body);
  const headers: Record<string, string> = {
    host: request.url.host,
    'x-amz-content-sha256': payloadHash,
    'x-amz-date': amzDate,
  };
  const signedHeaders = Object.keys(headers).sort();
  const query = [...request.url.searchParams]
    .map(([k, v]) => `${encodeRfc3986(k)}=${encodeRfc3986(v)}`)
    .sort()
    .join('&');
  const canonical = [
    request.method,
    request.url.pathname,
    query,
    ...signedHeaders.map((name) => `${name}:${headers[name]!.trim()}`),
    '',
    signedHeaders.join(';'),
    payloadHash,
  ].join('\n');
  const scope = `${day}/${credentials.region}/s3/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const signingKey = hmac(
    hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, day), credentials.region), 's3'),
    'aws4_request',
  );
  const signature = createHmac('sha256', signingKey).update(stringToSign).digest('hex');
  const { host: _host, ...sent } = headers;
  return {
    ...sent,
    authorization: `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders.join(';')}, Signature=${signature}`,
  };
}
