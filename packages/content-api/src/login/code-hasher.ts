import { createHmac, hkdfSync, randomInt, timingSafeEqual } from 'node:crypto';

export interface CodeHasher {
  /** A fresh 6-digit code. */
  generate(): string;
  hash(phone: string, code: string): string;
  /** Constant-time comparison of a typed code with the stored hash. */
  matches(phone: string, code: string, storedHash: string): boolean;
}

/**
 * Codes are stored as HMAC-SHA256 of phone + code under a key derived from the token secret,
 * so a database dump does not reveal live codes (a 6-digit space is too small for a plain hash).
 */
export function createCodeHasher(secret: string): CodeHasher {
  const key = Buffer.from(hkdfSync('sha256', secret, 'muse', 'verification-code', 32));
  const hash = (phone: string, code: string) =>
    createHmac('sha256', key).update(`${phone}:${code}`).digest('hex');
  return {
    generate: () => String(randomInt(0, 1_000_000)).padStart(6, '0'),
    hash,
    matches(phone, code, storedHash) {
      const actual = Buffer.from(hash(phone, code), 'hex');
      const expected = Buffer.from(storedHash, 'hex');
      return actual.length === expected.length && timingSafeEqual(actual, expected);
    },
  };
}
