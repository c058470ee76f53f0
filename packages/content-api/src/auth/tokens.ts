import { createSigner, createVerifier } from 'fast-jwt';

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

/** Tokens whose verified claims a process keeps (fast-jwt's LRU cache), about 0.5 MB when full. */
export const VERIFIED_TOKENS_CACHED = 1000;

/**
 * HS256 on node:crypto through fast-jwt: a synchronous HMAC over a secret KeyObject made once
 * (about a third of the CPU of jose's WebCrypto verify, bench/token-verify.ts). The algorithm is
 * pinned, `exp` is checked (as `nbf` would be), and `sub`, `iat` and `exp` must be present.
 *
 * A client sends the same token with every request, so the claims of the last
 * VERIFIED_TOKENS_CACHED valid tokens are kept, keyed by a SHA-512 of the whole token: an exact
 * repeat skips the decoding and the HMAC, and any other string (one changed character) is
 * verified anew.
 * fast-jwt keeps an entry no longer than the token's `exp`, so an expired token is refused as
 * before; a refusal is never answered from the cache. What the token does not decide (a ban, revoked rights) is read
 * from the account on every request, as before.
 */
export function createTokenSigner(secret: string, ttlSeconds: number): TokenSigner {
  const signer = createSigner({ key: secret, algorithm: 'HS256', expiresIn: ttlSeconds * 1000 });
  const verifier = createVerifier({
    key: secret,
    algorithms: ['HS256'],
    requiredClaims: ['sub', 'iat', 'exp'],
    // Keyed by fast-jwt's own SHA-512 of the token: a key of our own (the token itself) saves
    // ~2 µs more, but fast-jwt warns on every start of a process that uses one.
    cache: VERIFIED_TOKENS_CACHED,
  });
  return {
    sign: async (user) =>
      signer({ sub: user.id, is_active: user.isActive, permission: { is_admin: user.isAdmin } }),
    verify(token) {
      const claims = verifier(token) as Partial<TokenClaims>;
      // fast-jwt checks the types of the dates it validates (`exp`); `sub` and `iat` are checked here.
      if (typeof claims.sub !== 'string' || typeof claims.iat !== 'number' || typeof claims.exp !== 'number')
        throw new Error('incomplete claims');
      return claims as TokenClaims;
    },
  };
}
