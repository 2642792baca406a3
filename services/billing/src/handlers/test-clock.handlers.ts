import { DomainError, requireScope } from '@billing/platform';
import type { BillingDeps } from '../billing-deps';
import { advanceTestClock } from '../usecases/test-clocks/advance-test-clock.usecase';
import { getTestClock } from '../usecases/test-clocks/get-test-clock.usecase';
import type { BillingHandlers } from './billing-messages';

/** When a test clock's advance does not say how long a charge may stay PENDING before it is settled. */
const DEFAULT_SETTLE_AFTER_MS = 30_000;

/** Test clocks (docs/api-behaviour.md §13). Thin: proto request -> use case -> proto response. */
export function testClockHandlers(deps: BillingDeps): Partial<BillingHandlers> {
  return {
    async advanceTestClock(req) {
      if (!req.to) throw DomainError.invalid([{ loc: ['body', 'to'], msg: 'Field required', type: 'missing' }]);
      const now = await advanceTestClock(
        deps,
        requireScope(req.scope),
        req.to,
        deps.paymentSettleAfterMs ?? DEFAULT_SETTLE_AFTER_MS,
      );
      return { now };
    },
    async getTestClock(req) {
      return { now: await getTestClock(deps, requireScope(req.scope)) };
    },
  };
}
