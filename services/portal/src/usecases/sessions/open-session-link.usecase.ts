import { hashOf, isTokenShaped } from '@billing/platform';
import { newBrowserSecrets, sessionExpired } from '../../browser-sessions/browser-session';
import type { PortalDeps } from '../../portal-deps';

/**
 * A session URL opened (docs/api-behaviour.md §24): once, within its ten minutes, it starts the
 * browser session and answers the cookie's token; afterwards, and for any token we did not
 * give, the "link expired" refusal, which names no customer.
 */
export async function openSessionLink(deps: PortalDeps, token: string): Promise<string> {
  if (!isTokenShaped(token)) throw sessionExpired();
  const secrets = newBrowserSecrets();
  const session = await deps.sessions.useLink(
    hashOf(token),
    { browserTokenHash: secrets.browserTokenHash, csrfToken: secrets.csrfToken },
    deps.clock.now(),
  );
  if (!session) throw sessionExpired();
  return secrets.cookieToken;
}
