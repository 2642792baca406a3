import type { Transaction } from 'sequelize';
import { recordEvent } from '@billing/platform';
import type { SubscriptionModel } from '../db/models';
import type { BillingDeps } from '../billing-deps';
import { subscriptionEvents } from '../events/subscription.events';
import { viewOf } from '../read-models/subscription.read-model';

/**
 * Records the internal subscription.mrr_revised event after a change that moves the
 * subscription's MRR without a webhook event of its own (a discount, its tax rates), in the
 * change's transaction, so the analytics read model sees the new MRR at the moment it changed
 * (docs/api-behaviour.md §25).
 */
export async function recordMrrRevision(
  deps: BillingDeps,
  subscription: SubscriptionModel,
  now: Date,
  transaction: Transaction,
): Promise<void> {
  const view = await viewOf(deps, subscription, transaction);
  await recordEvent(deps.sequelize, transaction, subscriptionEvents.mrrRevised(view, now));
}
