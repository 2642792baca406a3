import type { PortalDeps } from '../../portal-deps';

const BATCH = 1000;

/**
 * Sessions that can never open anything again are deleted, in batches until none is left: a
 * link past its ten minutes that was never opened, a browser session idle for longer than
 * PORTAL_IDLE_TTL_SECONDS (docs/api-behaviour.md §24). Nothing else reads them.
 */
export async function purgeEndedSessions(deps: PortalDeps): Promise<number> {
  let purged = 0;
  for (;;) {
    const now = deps.clock.now();
    const idleSince = new Date(now.getTime() - deps.settings.idleTtlSeconds * 1000);
    const deleted = await deps.sessions.purgeEnded(now, idleSince, BATCH);
    purged += deleted;
    if (deleted < BATCH) return purged;
  }
}
