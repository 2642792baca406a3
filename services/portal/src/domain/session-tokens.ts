/** When a session URL created at `createdAt` stops opening the portal (docs/api-behaviour.md §24). */
export const linkExpiry = (createdAt: Date, ttlSeconds: number): Date =>
  new Date(createdAt.getTime() + ttlSeconds * 1000);

/** Whether a browser session last used at `lastSeenAt` is still alive at `now`. */
export const isAlive = (lastSeenAt: Date, now: Date, idleSeconds: number): boolean =>
  now.getTime() - lastSeenAt.getTime() < idleSeconds * 1000;
