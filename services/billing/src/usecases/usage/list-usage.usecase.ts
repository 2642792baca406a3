import type { PageRequest, ProjectScope } from '@billing/platform';
import type { UsageRecordModel } from '../../db/models';
import type { BillingDeps } from '../../billing-deps';

/** A subscription's usage history, newest first; `billed` filters when given. */
export async function listUsage(
  deps: BillingDeps,
  scope: ProjectScope,
  subscriptionId: string,
  page: PageRequest,
  billed?: boolean,
): Promise<UsageRecordModel[]> {
  const subscription = await deps.subscriptions.get(scope, subscriptionId);
  return deps.usage.listForSubscription(scope, subscription.id, page, billed);
}
