import { createHash, randomBytes } from 'node:crypto';

/**
 * The secrets of the portal's sessions (docs/api-behaviour.md §24): 256 random bits each, told
 * once (the session URL, the cookie) and kept only as their SHA-256, so that a copy of the
 * database opens nothing.
 */
export const newToken = (): string => randomBytes(32).toString('base64url');

export const hashOf = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** A token as we write them: 43 base64url characters; anything else is looked up as nothing. */
export const isTokenShaped = (token: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(token);

/** When a session URL created at `createdAt` stops opening the portal. */
export const linkExpiry = (createdAt: Date, ttlSeconds: number): Date =>
  new Date(createdAt.getTime() + ttlSeconds * 1000);

/** Whether a browser session last used at `lastSeenAt` is still alive at `now`. */
export const isAlive = (lastSeenAt: Date, now: Date, idleSeconds: number): boolean =>
  now.getTime() - lastSeenAt.getTime() < idleSeconds * 1000;
