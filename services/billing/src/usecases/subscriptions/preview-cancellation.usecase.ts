import type { ProjectScope } from '@billing/platform';
import type { RefundView } from '../../domain/cancellation-refund';
import { nextStatus } from '../../domain/subscription-status';
import type { BillingDeps } from '../../billing-deps';
import { quoteCancellationRefund } from '../../subscription-changes/quote-cancellation-refund';

export interface PreviewCancellationCommand {
  subscriptionId: string;
  atPeriodEnd: boolean;
  policyId?: string;
}

/**
 * POST /subscriptions/{id}/cancel/preview (docs/api-behaviour.md §8, 16.4): the refund the same cancel would
 * give right now (`id` null, `status` PENDING), changing nothing. Null when no policy applies,
 * and at period end (which refunds nothing). A subscription that cannot be cancelled -> 400,
 * as the cancel would answer.
 */
export async function previewCancellation(
  deps: BillingDeps,
  scope: ProjectScope,
  command: PreviewCancellationCommand,
): Promise<RefundView | null> {
  const subscription = await deps.subscriptions.get(scope, command.subscriptionId);
  nextStatus(subscription.status, command.atPeriodEnd ? 'period_end_cancel' : 'cancel');
  if (command.atPeriodEnd) return null;
  const now = await deps.clocks.now(scope);
  return (await quoteCancellationRefund(deps, scope, subscription, { policyId: command.policyId, now })).refund;
}
