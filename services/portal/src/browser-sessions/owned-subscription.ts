import { status as GrpcStatus } from '@grpc/grpc-js';
import { DomainError, isGrpcServiceError } from '@billing/platform';
import type { billingV1 } from '@billing/proto';
import type { PortalSessionModel } from '../db/models/portal-session.model';
import type { PortalDeps } from '../portal-deps';
import { scopeOf } from './browser-session';

const NOT_FOUND = () => new DomainError('not_found', 'Subscription not found');

/**
 * The subscription a portal URL or form names, if it is the session's customer's: any other id
 * (another customer's, another project's, none at all) is the same 404 (docs/api-behaviour.md §24).
 */
export async function ownedSubscription(
  deps: PortalDeps,
  session: PortalSessionModel,
  subscriptionId: string,
): Promise<billingV1.Subscription> {
  try {
    const { subscription } = await deps.billing.getSubscription({ scope: scopeOf(session), subscriptionId });
    if (!subscription || subscription.customerId !== session.customerId) throw NOT_FOUND();
    return subscription;
  } catch (err) {
    const code = isGrpcServiceError(err) ? err.code : undefined;
    if (
      code === GrpcStatus.NOT_FOUND ||
      code === GrpcStatus.PERMISSION_DENIED ||
      code === GrpcStatus.INVALID_ARGUMENT
    ) {
      throw NOT_FOUND();
    }
    throw err;
  }
}
