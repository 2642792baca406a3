import type { BillingDeps } from './billing-deps';
import { runBillingPass, type BillingPassOptions } from './renew-due-subscriptions.usecase';
import { settlePendingPayments } from './settle-pending-payments.usecase';

/** Safety bound of one scheduled run; the next interval continues where it stopped. */
const MAX_PASSES = 1000;

/**
 * One run of the renewal and dunning scheduler: settles charges a dead process left PENDING,
 * then repeats billing passes until nothing more is due (a catch-up after a long clock jump
 * takes one step per subscription per pass, so each subscription's steps run in time order).
 * Test-mode work takes its smaller budget of rows and provider calls at once, so that it leaves
 * the process's connections and CPU to live renewals running beside it.
 */
export async function runDueBilling(
  deps: BillingDeps,
  passOptions: BillingPassOptions & { settleAfterMs: number },
): Promise<number> {
  const options =
    passOptions.livemode === false
      ? { ...deps.testModeBudget, ...passOptions }
      : { concurrency: deps.providerCallsInFlight, ...passOptions };
  let total = await settlePendingPayments(deps, {
    olderThanMs: options.settleAfterMs,
    projectId: options.projectId,
    livemode: options.livemode,
  });
  for (let pass = 0; pass < MAX_PASSES; pass += 1) {
    const done = await runBillingPass(deps, options);
    total += done;
    if (done === 0) break;
  }
  return total;
}
