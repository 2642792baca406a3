import type { BillingDeps } from '../../billing-deps';
import { applyCardUpdate } from '../../subscription-changes/card-update';

/** Card updates asked about in one pass; the rest wait for the next. */
const BATCH = 100;

/**
 * Card updates whose payer never came back to the portal (the page closed after paying, the
 * callback lost): each is asked of the provider once it is `olderThanMs` old, and again every
 * `olderThanMs` while the provider has no final word, and applied once it has (applyCardUpdate),
 * so a verified card always becomes the subscription's and its verification charge always comes
 * back. A provider that cannot be asked leaves the update for the next pass.
 */
export async function settleCardUpdates(deps: BillingDeps, options: { olderThanMs: number }): Promise<number> {
  const due = await deps.cardUpdates.dueForCheck(new Date(deps.clock.now().getTime() - options.olderThanMs), BATCH);
  let settled = 0;
  for (const update of due) {
    try {
      if ((await applyCardUpdate(deps, update)) !== 'PENDING') settled += 1;
    } catch (err) {
      deps.logger.warn({ err, reference: update.reference }, 'card update not settled; will retry');
      await deps.cardUpdates.markChecked(update.reference, deps.clock.now());
    }
  }
  return settled;
}
