import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Download links that need no token: `/api/v1/files/{id}/content?expires=<unix>&signature=<hmac>`.
 * The signature is an HMAC-SHA256 of the file id and expiry under a key derived from the
 * token secret, so rotating that secret also invalidates every link handed out.
 */
export interface LinkSigner {
  /** The path and query of a link valid for the configured time from `now`. */
  sign(fileId: string, now?: number): string;
  /** Whether the signature is genuine for this id and expiry, and the expiry has not passed. */
  verify(fileId: string, expires: string, signature: string, now?: number): boolean;
}

export function createLinkSigner(tokenSecret: string, ttlSeconds: number): LinkSigner {
  const key = createHmac('sha256', tokenSecret).update('muse file download links').digest();
  const mac = (fileId: string, expires: string) =>
    createHmac('sha256', key).update(`${fileId}\n${expires}`).digest('base64url');
  return {
    sign(fileId, now = Date.now()) {
      const expires = String(Math.floor(now / 1000) + ttlSeconds);
      return `/api/v1/files/${fileId}/content?expires=${expires}&signature=${mac(fileId, expires)}`;
    },
    verify(fileId, expires, signature, now = Date.now()) {
      if (!/^\d{1,12}$/.test(expires) || Number(expires) * 1000 < now) return false;
      const expected = Buffer.from(mac(fileId, expires));
      const given = Buffer.from(signature);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}
