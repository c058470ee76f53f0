import { hash } from 'node:crypto';
import express, { type Express, type Request, type Response } from 'express';

/**
 * Express's default ETag, the same value (`W/"<length in hex>-<SHA-1, base64, 27 characters>"`,
 * as the `etag` package makes it), from one hashing call instead of a Hash object per answer. A
 * string is hashed as its UTF-8 bytes without being copied into a Buffer first.
 */
export function weakEtag(body: Buffer | string, encoding?: BufferEncoding): string {
  if (typeof body === 'string' && encoding !== undefined && encoding !== 'utf8' && encoding !== 'utf-8')
    body = Buffer.from(body, encoding);
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  if (length === 0) return 'W/"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk"';
  return `W/"${length.toString(16)}-${hash('sha1', body, 'base64').substring(0, 27)}"`;
}

/**
 * `res.json` of a service app: the answer Express's `res.json` gives (the same body, status and
 * headers: `Content-Type: application/json; charset=utf-8`, `Content-Length`, the weak ETag, 304
 * to a matching conditional GET, no body for HEAD, 204 and 304), written with less work per
 * answer. Express turns the JSON text into a Buffer to hash it, parses and re-formats the content
 * type it just set to add the charset, and reads every request's freshness; the header block and
 * a Buffer body then go to the socket in two pieces (a `writev`), where the text is written with
 * its header in one `write`. Installed for the whole app (createServiceApp), so every JSON answer
 * is written this way. Express's JSON settings (`json spaces`, `json replacer`, `json escape`)
 * are not read: no service sets them.
 */
function answerJson(this: Response, value: unknown): Response {
  // A caller's own content type gets Express's charset handling (no answer does this today).
  if (this.hasHeader('Content-Type')) return express.response.json.call(this, value);
  const body = JSON.stringify(value) as string | undefined;
  this.setHeader('Content-Type', 'application/json; charset=utf-8');
  if (body === undefined) return this.send(); // `res.json(undefined)`: no body, as Express
  if (!this.hasHeader('Transfer-Encoding')) this.setHeader('Content-Length', Buffer.byteLength(body));
  if (!this.hasHeader('ETag')) this.setHeader('ETag', weakEtag(body));
  if (isConditional(this.req) && this.req.fresh) this.statusCode = 304;
  const status = this.statusCode;
  if (status === 204 || status === 304) {
    this.removeHeader('Content-Type');
    this.removeHeader('Content-Length');
    this.removeHeader('Transfer-Encoding');
    this.end();
  } else if (status === 205) {
    this.setHeader('Content-Length', '0');
    this.removeHeader('Transfer-Encoding');
    this.end();
  } else if (this.req.method === 'HEAD') this.end();
  else this.end(body, 'utf8');
  return this;
}

/** Only a request with a validator can be fresh; the rest skip Express's freshness check. */
function isConditional(req: Request): boolean {
  return req.headers['if-none-match'] !== undefined || req.headers['if-modified-since'] !== undefined;
}

/** Makes `answerJson` the `res.json` (and so `res.send(object)`) of every response of `app`. */
export function writeJsonLeanly(app: Express): void {
  app.set('etag', weakEtag);
  app.response.json = answerJson as Response['json'];
}
