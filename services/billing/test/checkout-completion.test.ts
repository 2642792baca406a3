import { DomainError } from '@billing/platform';
import type { VerifiedTransaction } from '@billing/payments';
import { NO_TAX } from '../src/domain/invoice-totals';
import {
  assertCheckoutPaid as assertPaid,
  quoteCheckout,
  subscriptionStart,
  validatePlanSnapshot,
  type PlanSnapshot,
} from '../src/domain/checkout-completion';

const plan = (overrides: Partial<PlanSnapshot> = {}): PlanSnapshot => ({
  planId: '3f1c1a52-8d4e-4c57-9d0c-2c6f0e6f9a01',
  name: 'Pro',
  amount: 500050,
  currency: 'NGN',
  interval: 'monthly',
  intervalCount: 1,
  trialPeriodDays: 0,
  usageUnitAmount: null,
  taxRateIds: [],
  ...overrides,
});

const paid = (overrides: Partial<VerifiedTransaction> = {}): VerifiedTransaction => ({
  reference: 'ref',
  status: 'success',
  amount: 500050,
  currency: 'NGN',
  gatewayResponse: 'Approved',
  paidAt: new Date(),
  customer: null,
  authorization: null,
  metadata: {},
  ...overrides,
});

/** The rule against the quote of the plan's first invoice, untaxed and undiscounted. */
const assertCheckoutPaid = (transaction: VerifiedTransaction | null, p: PlanSnapshot) =>
  assertPaid(transaction, p, quoteCheckout(p, null, NO_TAX));

function refusal(run: () => unknown): DomainError {
  try {
    run();
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('expected a DomainError');
}

describe('checkout completion rules', () => {
  it("accepts exactly the plan's price, or the verification charge for a trial", () => {
    expect(assertCheckoutPaid(paid(), plan()).reference).toBe('ref');
    expect(assertCheckoutPaid(paid({ amount: 100 }), plan({ trialPeriodDays: 7 })).amount).toBe(100);
  });

  it("refuses anything else as payment_required, in the provider's words when it has some", () => {
    const declined = refusal(() => assertCheckoutPaid(paid({ status: 'failed', gatewayResponse: 'Declined' }), plan()));
    expect(declined).toMatchObject({ kind: 'payment_required', message: 'Declined' });
    expect(refusal(() => assertCheckoutPaid(null, plan())).kind).toBe('payment_required');
    expect(refusal(() => assertCheckoutPaid(paid({ status: 'pending', gatewayResponse: '' }), plan())).message).toBe(
      'Payment pending',
    );
    expect(refusal(() => assertCheckoutPaid(paid({ amount: 100 }), plan())).kind).toBe('payment_required');
    expect(refusal(() => assertCheckoutPaid(paid({ currency: 'USD' }), plan())).kind).toBe('payment_required');
    expect(refusal(() => assertCheckoutPaid(paid(), plan({ trialPeriodDays: 7 }))).kind).toBe('payment_required');
  });

  it('starts a paid subscription ACTIVE for one period from now', () => {
    const now = new Date('2027-01-31T12:00:00.000Z');
    expect(subscriptionStart(plan(), now)).toEqual({
      status: 'ACTIVE',
      billingAnchor: now,
      trialEnd: null,
      period: { start: now, end: new Date('2027-02-28T12:00:00.000Z') },
    });
  });

  it('starts a trial TRIALING for its days, and anchors paid periods on its end', () => {
    const now = new Date('2027-01-31T12:00:00.000Z');
    const end = new Date('2027-02-14T12:00:00.000Z');
    expect(subscriptionStart(plan({ trialPeriodDays: 14 }), now)).toEqual({
      status: 'TRIALING',
      billingAnchor: end,
      trialEnd: end,
      period: { start: now, end },
    });
  });

  it('refuses a malformed plan snapshot field by field', () => {
    const error = refusal(() =>
      validatePlanSnapshot({
        planId: 'x',
        name: 'Pro',
        amount: -1,
        currency: 'EUR',
        interval: 'fortnightly',
        intervalCount: 1,
        trialPeriodDays: 0,
      }),
    );
    expect(error.kind).toBe('invalid_argument');
    expect(error.violations.map((v) => v.loc[1]).sort()).toEqual(['amount', 'currency', 'interval', 'plan_id']);
  });
});
