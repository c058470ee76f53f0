import { createHash, createHmac } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { startFakeServer, type FakeServer, type RecordedRequest } from './server.ts';

export interface FakeS3 extends FakeServer {
  objects: Map<string, Buffer>;
}

/**
 * An S3-compatible object store (path-style: /{bucket}/{key}) that checks every request's
 * AWS Signature Version 4 the way S3 documents it: canonical request → string to sign →
 * HMAC chain of the secret key; a mismatch answers 403 SignatureDoesNotMatch, as S3 does.
 */
export async function startFakeS3(options: {
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}): Promise<FakeS3> {
  const objects = new Map<string, Buffer>();
  const fake = (await startFakeServer((request, res) => {
    if (!signatureMatches(request, options)) return xmlError(res, 403, 'SignatureDoesNotMatch');
    const url = new URL(request.path, 'http://fake');
    const [, bucket, ...rest] = url.pathname.split('/');
    const key = decodeURIComponent(rest.join('/'));
    if (bucket !== options.bucket) return xmlError(res, 404, 'NoSuchBucket');
    if (request.method === 'PUT') {
      objects.set(key, Buffer.from(request.rawBody));
      res.writeHead(200, { etag: `"${createHash('md5').update(request.rawBody).digest('hex')}"` });
      return void res.end();
    }
    if (request.method === 'GET') {
      const object = objects.get(key);
      if (!object) return xmlError(res, 404, 'NoSuchKey');
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': object.length });
      return void res.end(object);
    }
    if (request.method === 'DELETE') {
      objects.delete(key);
      res.writeHead(204);
      return void res.end();
    }
    xmlError(res, 405, 'MethodNotAllowed');
  })) as FakeS3;
  fake.objects = objects;
  return fake;
}

function xmlError(res: ServerResponse, status: number, code: string): void {
  res.writeHead(status, { 'content-type': 'application/xml' });
  res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code></Error>`);
}

function signatureMatches(
  request: RecordedRequest,
  options: { accessKeyId: string; secretAccessKey: string; region: string },
): boolean {
  const header = String(request.headers.authorization ?? '');
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
      header,
    );
  if (!match) return false;
  const [, accessKeyId, day, region, signedHeaders, signature] = match as unknown as string[];
  if (accessKeyId !== options.accessKeyId || region !== options.region) return false;
  const payloadHash = createHash('sha256').update(request.rawBody).digest('hex');
  if (request.headers['x-amz-content-sha256'] !== payloadHash) return false;
  const url = new URL(request.path, 'http://fake');
  const names = signedHeaders!.split(';');
  if (!names.includes('host') || !names.includes('x-amz-date')) return false;
  const canonicalRequest = [
    request.method,
    url.pathname,
    [...url.searchParams]
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
      .sort()
      .join('&'),
    names.map((name) => `${name}:${String(request.headers[name] ?? '').trim()}\n`).join(''),
    signedHeaders,
    payloadHash,
  ].join('\n');
  const amzDate = String(request.headers['x-amz-date']);
  const toSign = `AWS4-HMAC-SHA256\n${amzDate}\n${day}/${region}/s3/aws4_request\n${createHash('sha256').update(canonicalRequest).digest('hex')}`;
  let key: Buffer = createHmac('sha256', `AWS4${options.secretAccessKey}`).update(day!).digest();
  for (const part of [region!, 's3', 'aws4_request']) key = createHmac('sha256', key).update(part).digest();
  return createHmac('sha256', key).update(toSign).digest('hex') === signature;
}
