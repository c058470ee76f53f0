import { createHmac, timingSafeEqual } from 'node:crypto';

/** HMAC-SHA256 of `text`, hex: what our own links (BigBlueButton join, Zoom OAuth state) carry. */
export function sign(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text).digest('hex');
}

export function verify(secret: string, text: string, signature: string): boolean {
  const expected = Buffer.from(sign(secret, text));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
