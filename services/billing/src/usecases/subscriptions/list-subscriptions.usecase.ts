import { DomainError, isUuid, type PageRequest, type ProjectScope } from '@billing/platform';
import { SUBSCRIPTION_STATUSES, type SubscriptionStatus } from '../../domain/subscription-status';
import type { BillingDeps } from '../../billing-deps';
import { subscriptionViews, type SubscriptionView } from '../../read-models/subscription.read-model';

export interface SubscriptionListFilter {
  status?: string;
  customerId?: string;
  planId?: string;
}

/**
 * One page of the scope's subscriptions, newest first. A filter id that is not a UUID names no
 * subscription, so it is an empty page rather than an error.
 */
export async function listSubscriptions(
  deps: BillingDeps,
  scope: ProjectScope,
  page: PageRequest,
  filter: SubscriptionListFilter,
): Promise<SubscriptionView[]> {
  const status = filter.status?.trim().toUpperCase() || undefined;
  if (status && !(SUBSCRIPTION_STATUSES as readonly string[]).includes(status)) {
    throw DomainError.invalid([
      {
        loc: ['query', 'status'],
        msg: `Input should be ${SUBSCRIPTION_STATUSES.map((s) => `'${s}'`).join(', ')}`,
        type: 'enum',
        input: filter.status,
      },
    ]);
  }
  if ((filter.customerId && !isUuid(filter.customerId)) || (filter.planId && !isUuid(filter.planId))) return [];
  const subscriptions = await deps.subscriptions.list(scope, page, {
    status: status as SubscriptionStatus | undefined,
    customerId: filter.customerId || undefined,
    planId: filter.planId || undefined,
  });
  return subscriptionViews(deps, subscriptions);
}
