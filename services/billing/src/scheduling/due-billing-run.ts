import type { BillingDeps } from '../billing-deps';
import { DEFAULT_BATCH_SIZE, DEFAULT_CONCURRENCY, runBillingPass, type BillingPassOptions } from './billing-pass';
import { settlePendingPayments } from './settle-pending-payments';

/** Safety bound of one scheduled run; the next interval continues where it stopped. */
const MAX_PASSES = 1000;

export interface SchedulerRunOptions extends BillingPassOptions {
  settleAfterMs: number;
  /**
   * Sizes the provider calls in flight from the target rate and the provider's latency (Little's
   * law: PaymentProviders.callsInFlight), given the mode's budget as the most it may return.
   * Unset: the whole budget.
   */
  callsInFlight?: (max: number) => number;
}

/**
 * One run of the renewal and dunning scheduler: settles charges a dead process left PENDING,
 * then repeats billing passes until nothing more is due (a catch-up after a long clock jump
 * takes one step per subscription per pass, so each subscription's steps run in time order).
 * Test-mode work takes its smaller budget of rows and provider calls at once, so that it leaves
 * the process's connections and CPU to live renewals running beside it.
 */
export async function runDueBilling(deps: BillingDeps, runOptions: SchedulerRunOptions): Promise<number> {
  const { callsInFlight, ...passOptions } = runOptions;
  const budget =
    passOptions.livemode === false && deps.testModeBudget
      ? deps.testModeBudget
      : { batchSize: DEFAULT_BATCH_SIZE, concurrency: deps.providerCallsInFlight ?? DEFAULT_CONCURRENCY };
  // Sized once per run, from the latency measured so far: a run lasts a poll's worth of batches.
  const concurrency = passOptions.concurrency ?? callsInFlight?.(budget.concurrency) ?? budget.concurrency;
  // Two batches' charges share the calls in flight (stepAndChargeDue), so a batch smaller than
  // them would leave slots unused while the next batch is stepped.
  const batchSize = passOptions.batchSize ?? Math.max(budget.batchSize, concurrency);
  const options = { ...passOptions, concurrency, batchSize };
  let total = await settlePendingPayments(deps, {
    olderThanMs: options.settleAfterMs,
    projectId: options.projectId,
    livemode: options.livemode,
    concurrency,
  });
  for (let pass = 0; pass < MAX_PASSES; pass += 1) {
    const done = await runBillingPass(deps, options);
    total += done;
    if (done === 0) break;
  }
  return total;
}
