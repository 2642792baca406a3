import type { BillingDeps } from '../../billing-deps';

/** Keys deleted per statement: short transactions, however many expired at once. */
const BATCH = 1000;

/**
 * Deletes billing's Idempotency-Key records past their 24 h lifetime (docs/api-behaviour.md
 * §17.1), as the gateway's own records expire: a batch at a time until none is left. Returns how
 * many went.
 */
export async function expireIdempotencyKeys(deps: Pick<BillingDeps, 'idempotencyKeys' | 'clock'>): Promise<number> {
  let deleted = 0;
  for (;;) {
    const batch = await deps.idempotencyKeys.deleteExpired(deps.clock.now(), BATCH);
    deleted += batch;
    if (batch < BATCH) return deleted;
  }
}
