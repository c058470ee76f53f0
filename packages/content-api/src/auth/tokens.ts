import { createSigner, createVerifier } from 'fast-jwt';
import { LRUCache } from 'lru-cache';

/** The claims of a bearer token, exactly as the spec lists them. */
export interface TokenClaims {
  sub: string;
  is_active: boolean;
  permission: { is_admin: boolean };
  iat: number;
  exp: number;
}

export interface TokenSigner {
  sign(user: { id: string; isActive: boolean; isAdmin: boolean }): Promise<string>;
  /**
   * Throws for a malformed, tampered, unsigned (`alg: none`), wrongly signed or expired token.
   * Synchronous (an HMAC), so a request does not wait a turn of the microtask queue for it.
   */
  verify(token: string): TokenClaims;
}

/** Tokens whose verified claims a process keeps (least recently used first out), about 0.5 MB when full. */
export const VERIFIED_TOKENS_CACHED = 1000;

/**
 * HS256 on node:crypto through fast-jwt: a synchronous HMAC over a secret KeyObject made once
 * (about a third of the CPU of jose's WebCrypto verify, bench/token-verify.ts). The algorithm is
 * pinned, `exp` is checked (as `nbf` would be), and `sub`, `iat` and `exp` must be present.
 *
 * A client sends the same token with every request, so the claims of the last
 * VERIFIED_TOKENS_CACHED valid tokens are kept, keyed by the token itself: an exact repeat skips
 * the decoding and the HMAC, and any other string (one changed character) is verified anew. The
 * token is its own key because fast-jwt's own cache keys by a SHA-512 of it (~7 µs of a
 * profiled `GET /users/me`'s ~290), and warns on every process start when given a key of one's own.
 * An entry is used only while the token's `exp` is ahead (fast-jwt's rule for its cache), so an
 * expired token is verified, and refused, as before; a refusal is never kept. What the token does
 * not decide (a ban, revoked rights) is read from the account on every request, as before.
 */
export function createTokenSigner(secret: string, ttlSeconds: number): TokenSigner {
  const signer = createSigner({ key: secret, algorithm: 'HS256', expiresIn: ttlSeconds * 1000 });
  const verifier = createVerifier({
    key: secret,
    algorithms: ['HS256'],
    requiredClaims: ['sub', 'iat', 'exp'],
  });
  const verified = new LRUCache<string, TokenClaims>({ max: VERIFIED_TOKENS_CACHED });
  return {
    sign: async (user) =>
      signer({ sub: user.id, is_active: user.isActive, permission: { is_admin: user.isAdmin } }),
    verify(token) {
      const kept = verified.get(token);
      if (kept && kept.exp * 1000 > Date.now()) return kept;
      const claims = verifier(token) as Partial<TokenClaims>;
      // fast-jwt checks the types of the dates it validates (`exp`); `sub` and `iat` are checked here.
      if (typeof claims.sub !== 'string' || typeof claims.iat !== 'number' || typeof claims.exp !== 'number')
        throw new Error('incomplete claims');
      verified.set(token, claims as TokenClaims);
      return claims as TokenClaims;
    },
  };
}
