import { scopeOf } from '../../browser-sessions/browser-session';
import { settingsFor } from '../../configurations/settings-of';
import type { PortalSessionModel } from '../../db/models/portal-session.model';
import type { PortalDeps } from '../../portal-deps';

/** Where "Return" goes: the session's return_url, else the configuration's return_url_default; null, nowhere. */
export async function returnDestination(deps: PortalDeps, session: PortalSessionModel): Promise<string | null> {
  if (session.returnUrl) return session.returnUrl;
  return (await settingsFor(() => deps.configurations.find(scopeOf(session)))).returnUrlDefault;
}
