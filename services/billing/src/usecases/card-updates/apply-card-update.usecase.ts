import type { ProjectScope } from '@billing/platform';
import type { BillingDeps } from '../../billing-deps';
import {
  applyCardUpdate as applyStartedCardUpdate,
  type CardUpdateOutcome,
} from '../../subscription-changes/card-update';

/**
 * The provider sent the payer of an "Update card" back (docs/api-behaviour.md §20, "Updating the
 * card"): the update is applied once (subscription-changes/card-update.ts). A reference this
 * customer did not start in this scope (forged, another customer's) changes nothing: UNKNOWN.
 */
export async function applyCardUpdate(
  deps: BillingDeps,
  scope: ProjectScope,
  customerId: string,
  transactionReference: string,
): Promise<CardUpdateOutcome | 'UNKNOWN'> {
  const started = transactionReference ? await deps.cardUpdates.find(transactionReference) : null;
  const ours =
    started?.customerId === customerId && started.projectId === scope.projectId && started.livemode === scope.livemode;
  return ours ? applyStartedCardUpdate(deps, started) : 'UNKNOWN';
}
