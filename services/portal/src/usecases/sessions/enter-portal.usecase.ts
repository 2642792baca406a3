import { randomUUID } from 'node:crypto';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { isGrpcServiceError } from '@billing/platform';
import { newBrowserSecrets, sessionExpired } from '../../browser-sessions/browser-session';
import type { PortalDeps } from '../../portal-deps';

/**
 * An entry link of a customer email opened (docs/api-behaviour.md §24): signed with
 * PORTAL_LINKS_KEY and not past its expiry, it starts a fresh browser session of that customer,
 * as a session URL does; any other token is the "link expired" refusal.
 */
export async function enterPortal(deps: PortalDeps, token: string): Promise<string> {
  const now = deps.clock.now();
  const claims = deps.links.claimsOf(token, now);
  if (!claims) throw sessionExpired();
  let merchantId: string;
  try {
    merchantId = (await deps.identity.getProjectSeller({ projectId: claims.projectId })).merchantId;
    const scope = { projectId: claims.projectId, merchantId, livemode: claims.livemode };
    await deps.billing.getCustomer({ scope, customerId: claims.customerId });
  } catch (err) {
    // A project or customer that is gone opens nothing, and says nothing about which.
    if (isGrpcServiceError(err) && (err.code === GrpcStatus.NOT_FOUND || err.code === GrpcStatus.PERMISSION_DENIED)) {
      throw sessionExpired();
    }
    throw err;
  }
  const secrets = newBrowserSecrets();
  await deps.sessions.openDirectly(
    {
      id: randomUUID(),
      projectId: claims.projectId,
      livemode: claims.livemode,
      merchantId,
      customerId: claims.customerId,
      returnUrl: null,
      linkTokenHash: null,
      linkExpiresAt: now,
      createdAt: now,
    },
    { browserTokenHash: secrets.browserTokenHash, csrfToken: secrets.csrfToken },
  );
  return secrets.cookieToken;
}
