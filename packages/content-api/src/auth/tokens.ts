import { createSecretKey } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';

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
  /** Rejects a malformed, tampered, unsigned (`alg: none`), wrongly signed or expired token. */
  verify(token: string): Promise<TokenClaims>;
}

export function createTokenSigner(secret: string, ttlSeconds: number): TokenSigner {
  // A CryptoKey made once: given raw bytes (or a secret KeyObject), jose imports the key on every call.
  const key = createSecretKey(new TextEncoder().encode(secret)).toCryptoKey(
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign', 'verify'],
  );
  return {
    sign: (user) =>
      new SignJWT({ is_active: user.isActive, permission: { is_admin: user.isAdmin } })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(user.id)
        .setIssuedAt()
        .setExpirationTime(`${ttlSeconds}s`)
        .sign(key),
    async verify(token) {
      const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'] });
      if (typeof payload.sub !== 'string' || typeof payload.exp !== 'number')
        throw new Error('incomplete claims');
      return payload as unknown as TokenClaims;
    },
  };
}
