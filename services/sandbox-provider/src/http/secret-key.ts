import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { DomainError } from '@billing/platform';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Paystack's API authentication: `Authorization: Bearer <secret key>`, else 401. Both sides are
 * hashed first so the constant-time comparison also hides the key's length.
 */
export function requireSecretKey(secretKey: string): RequestHandler {
  const expected = digest(secretKey);
  return (req, _res, next) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
    if (!match || !timingSafeEqual(digest(match[1]), expected)) {
      return next(new DomainError('unauthenticated', 'Invalid key'));
    }
    next();
  };
}
