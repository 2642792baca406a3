import { DomainError, hashOf, isTokenShaped, newToken, sameToken, type ProjectScope } from '@billing/platform';
import type { PortalSessionModel } from '../db/models/portal-session.model';
import type { PortalDeps } from '../portal-deps';

/**
 * The browser side of a portal session (docs/api-behaviour.md §24): the cookie's token and the
 * CSRF token of its forms, both fresh for every session opened.
 */
export interface BrowserSecrets {
  /** What the cookie carries; kept only hashed. */
  cookieToken: string;
  browserTokenHash: string;
  csrfToken: string;
}

export function newBrowserSecrets(): BrowserSecrets {
  const cookieToken = newToken();
  return { cookieToken, browserTokenHash: hashOf(cookieToken), csrfToken: newToken() };
}

/** The refusal of every portal action without a live session: 401, the "link expired" page. */
export const sessionExpired = () => new DomainError('unauthenticated', 'This portal link has expired');

/**
 * The live browser session of a cookie, kept alive by this request; any other cookie (none, one
 * we never gave, one idle for longer than PORTAL_IDLE_TTL_SECONDS) is refused the same way.
 */
export async function liveSession(deps: PortalDeps, cookieToken: string | undefined): Promise<PortalSessionModel> {
  if (!cookieToken || !isTokenShaped(cookieToken)) throw sessionExpired();
  const session = await deps.sessions.findByBrowserToken(hashOf(cookieToken));
  if (!session) throw sessionExpired();
  const now = deps.clock.now();
  const aliveSince = new Date(now.getTime() - deps.settings.idleTtlSeconds * 1000);
  if (!(await deps.sessions.touch(session.id, aliveSince, now))) throw sessionExpired();
  return session;
}

/**
 * Every form's CSRF token must be its session's: a missing or foreign one is 403 and the action
 * does not run. Compared in constant time.
 */
export function checkCsrf(session: PortalSessionModel, given: unknown): void {
  if (!sameToken(session.csrfToken, given)) {
    throw new DomainError(
      'permission_denied',
      'This form has expired or did not come from this portal; reload the page',
    );
  }
}

/** The project and mode a session acts in, as billing's calls carry it. */
export const scopeOf = (session: PortalSessionModel): ProjectScope => ({
  projectId: session.projectId,
  merchantId: session.merchantId,
  livemode: session.livemode,
});
