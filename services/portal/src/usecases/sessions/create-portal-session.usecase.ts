import { randomUUID } from 'node:crypto';
import { DomainError, hashOf, newToken, type ProjectScope } from '@billing/platform';
import { isReturnUrl } from '../../domain/portal-configuration';
import { linkExpiry } from '../../domain/session-tokens';
import type { PortalSessionModel } from '../../db/models/portal-session.model';
import type { PortalDeps } from '../../portal-deps';

export interface CreatedSession {
  session: PortalSessionModel;
  /** `${PUBLIC_URL}/portal/s/<token>`: the only place the token is told. */
  url: string;
}

/**
 * POST /portal/sessions (docs/api-behaviour.md §24): a session of one customer of this project
 * and mode (billing, which owns customers, says whether it is one: 404, or 403 for another
 * project's, as GET /customers/{id}). The URL opens the portal once, within PORTAL_LINK_TTL_SECONDS.
 */
export async function createPortalSession(
  deps: PortalDeps,
  scope: ProjectScope,
  input: { customerId: string; returnUrl?: string },
): Promise<CreatedSession> {
  const returnUrl = input.returnUrl?.trim() || null;
  if (returnUrl && !isReturnUrl(returnUrl)) {
    throw DomainError.invalid([
      { loc: ['body', 'return_url'], msg: 'must be an absolute http(s) URL', type: 'value_error', input: returnUrl },
    ]);
  }
  const { customer } = await deps.billing.getCustomer({ scope, customerId: input.customerId });
  if (!customer) throw new DomainError('not_found', 'Customer not found');
  const token = newToken();
  const now = deps.clock.now();
  const session = await deps.sessions.create({
    id: randomUUID(),
    projectId: scope.projectId,
    livemode: scope.livemode,
    merchantId: scope.merchantId,
    customerId: customer.id,
    returnUrl,
    linkTokenHash: hashOf(token),
    linkExpiresAt: linkExpiry(now, deps.settings.linkTtlSeconds),
    createdAt: now,
  });
  return { session, url: `${deps.settings.publicUrl}/portal/s/${token}` };
}
