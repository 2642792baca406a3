import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';

export interface AccessTokenClaims {
  sub: string;
  jti: string;
  iat: number;
  exp: number;
}

/** HS256 token for a merchant; iat/exp come from the platform clock, not Date.now(). */
export function signAccessToken(merchantId: string, secret: string, ttlSeconds: number, now: Date): string {
  const iat = Math.floor(now.getTime() / 1000);
  const claims: AccessTokenClaims = { sub: merchantId, jti: randomUUID(), iat, exp: iat + ttlSeconds };
  return jwt.sign(claims, secret, { algorithm: 'HS256' });
}

/** Returns the claims, or null for a malformed, tampered, expired or wrongly signed token. */
export function verifyAccessToken(token: string, secret: string, now: Date): AccessTokenClaims | null {
  try {
    const claims = jwt.verify(token, secret, {
      algorithms: ['HS256'],
      clockTimestamp: Math.floor(now.getTime() / 1000),
    });
    if (typeof claims !== 'object' || typeof claims.sub !== 'string' || typeof claims.exp !== 'number') return null;
    return claims as AccessTokenClaims;
  } catch {
    return null;
  }
}
