import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The secrets of browser sessions (the customer portal's, docs/api-behaviour.md §24, and the
 * merchant dashboard's, §25): 256 random bits each, told once (a link, a cookie, a form) and kept
 * only as their SHA-256 where they open something, so that a copy of the database opens nothing.
 */
export const newToken = (): string => randomBytes(32).toString('base64url');

export const hashOf = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** A token as we write them: 43 base64url characters; anything else is looked up as nothing. */
export const isTokenShaped = (token: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(token);

/**
 * Whether a form's CSRF token is the session's: compared in constant time; a missing, empty or
 * foreign one never matches.
 */
export function sameToken(expected: string | null | undefined, given: unknown): boolean {
  const want = Buffer.from(expected ?? '', 'utf8');
  const got = Buffer.from(typeof given === 'string' ? given : '', 'utf8');
  return want.length > 0 && got.length === want.length && timingSafeEqual(got, want);
}

/** One cookie of a request's Cookie header, read by hand: one name, no library needed. */
export function readCookie(cookieHeader: string | undefined, name: string): string | undefined {
  for (const part of (cookieHeader ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}
