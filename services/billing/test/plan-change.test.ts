import { DomainError } from '@billing/platform';
import { dueBillingStep } from '../src/domain/billing-step';
import { decidePlanChange, type ChangingSubscription, type PlanTerms } from '../src/domain/plan-change';
import { linePeriodOf, usageWindows } from '../src/domain/usage-windows';

/** The rules of a plan change (docs/api-behaviour.md §18), pure. */

const d = (iso: string) => new Date(iso);
const terms = (planId: string, amount: number, extra: Partial<PlanTerms> = {}): PlanTerms => ({
  planId,
  name: planId,
  amount,
  taxRateIds: [],
  interval: 'monthly',
  intervalCount: 1,
  usageUnitAmount: null,
  ...extra,
});
const BASIC = terms('basic', 1_000_000);
const PRO = terms('pro', 2_000_000);
const ANNUAL = terms('annual', 10_000_000, { interval: 'annually' });
const subscription = (extra: Partial<ChangingSubscription> = {}): ChangingSubscription => ({
  status: 'ACTIVE',
  currency: 'NGN',
  plan: BASIC,
  currentPeriodStart: d('2027-04-01T00:00:00.000Z'),
  currentPeriodEnd: d('2027-05-01T00:00:00.000Z'),
  paidForPeriod: BASIC.amount,
  ...extra,
});
const MIDDLE = d('2027-04-16T00:00:00.000Z');
const request = (plan: PlanTerms, extra: { proration?: 'IMMEDIATE' | 'NONE'; atPeriodEnd?: boolean } = {}) => ({
  plan: { ...plan, currency: 'NGN' },
  proration: extra.proration ?? ('IMMEDIATE' as const),
  atPeriodEnd: extra.atPeriodEnd ?? false,
});

function refusal(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (err) {
    if (err instanceof DomainError) return { code: err.kind, message: err.message };
    throw err;
  }
  throw new Error('not refused');
}

describe('decidePlanChange', () => {
  it('at the period end: schedules for current_period_end, or clears with the current plan', () => {
    expect(decidePlanChange(subscription(), request(PRO, { atPeriodEnd: true }), MIDDLE)).toEqual({
      kind: 'schedule',
      plan: PRO,
      at: d('2027-05-01T00:00:00.000Z'),
    });
    expect(decidePlanChange(subscription(), request(BASIC, { atPeriodEnd: true }), MIDDLE)).toEqual({
      kind: 'clear_pending',
    });
  });

  it('now: IMMEDIATE invoices the proration over the rest of the period; NONE swaps; a trial swaps', () => {
    const immediate = decidePlanChange(subscription(), request(PRO), MIDDLE);
    expect(immediate).toMatchObject({
      kind: 'invoice',
      plan: PRO,
      period: { start: MIDDLE, end: d('2027-05-01T00:00:00.000Z') },
      newPeriod: null,
    });
    expect(immediate.kind === 'invoice' && immediate.lines.map((l) => l.amount)).toEqual([-500_000, 1_000_000]);
    expect(decidePlanChange(subscription(), request(PRO, { proration: 'NONE' }), MIDDLE)).toEqual({
      kind: 'swap',
      plan: PRO,
      at: MIDDLE,
    });
    expect(decidePlanChange(subscription({ status: 'TRIALING' }), request(ANNUAL), MIDDLE)).toEqual({
      kind: 'swap',
      plan: ANNUAL,
      at: MIDDLE,
    });
  });

  it('takes effect at the start of the second of the period the request falls in', () => {
    const change = decidePlanChange(
      subscription({
        currentPeriodStart: d('2027-04-01T00:00:00.250Z'),
        currentPeriodEnd: d('2027-05-01T00:00:00.250Z'),
      }),
      request(PRO),
      d('2027-04-16T00:00:01.100Z'),
    );
    expect(change).toMatchObject({ kind: 'invoice', at: d('2027-04-16T00:00:00.250Z') });
    expect(change.kind === 'invoice' && change.lines.map((l) => l.periodStart)).toEqual([
      d('2027-04-16T00:00:00.250Z'),
      d('2027-04-16T00:00:00.250Z'),
    ]);
  });

  it('another interval: a new period from now, invoiced with IMMEDIATE and with NONE', () => {
    const newPeriod = { start: MIDDLE, end: d('2028-04-16T00:00:00.000Z') };
    for (const proration of ['IMMEDIATE', 'NONE'] as const) {
      const change = decidePlanChange(subscription(), request(ANNUAL, { proration }), MIDDLE);
      expect(change).toMatchObject({ kind: 'invoice', period: newPeriod, newPeriod });
    }
  });

  it.each([
    ['a past due subscription', subscription({ status: 'PAST_DUE' }), request(PRO), 'failed_precondition', /past due/],
    ['a paused subscription', subscription({ status: 'PAUSED' }), request(PRO), 'failed_precondition', /paused/],
    ['another currency', subscription({ currency: 'USD' }), request(PRO), 'failed_precondition', /billed in NGN/],
    ['the current plan, now', subscription(), request(BASIC), 'failed_precondition', /already on this plan/],
  ])('refuses %s (400)', (_name, sub, req, code, message) => {
    const refused = refusal(() => decidePlanChange(sub, req, MIDDLE));
    expect(refused.code).toBe(code);
    expect(refused.message).toMatch(message);
  });

  it('waits (503) when the period has ended and its renewal is still to be made', () => {
    expect(refusal(() => decidePlanChange(subscription(), request(PRO), d('2027-05-01T00:00:00.000Z'))).code).toBe(
      'unavailable',
    );
  });
});

describe('usageWindows: one window per plan in force', () => {
  const before = d('2027-05-01T00:00:00.000Z');
  it('a subscription that never changed plan: its plan, from the beginning', () => {
    expect(usageWindows(BASIC, [], before)).toEqual([{ plan: BASIC, from: null, to: before }]);
  });

  it('cuts at each change; the first plan takes older records; later plans are left out', () => {
    const history = [
      { plan: PRO, from: d('2027-04-16T00:00:00.000Z') },
      { plan: BASIC, from: d('2027-04-01T00:00:00.000Z') },
      { plan: ANNUAL, from: d('2027-05-01T00:00:00.000Z') },
    ];
    expect(usageWindows(ANNUAL, history, before)).toEqual([
      { plan: BASIC, from: null, to: d('2027-04-16T00:00:00.000Z') },
      { plan: PRO, from: d('2027-04-16T00:00:00.000Z'), to: before },
    ]);
  });

  it('shows each window within the invoiced period', () => {
    const period = { start: d('2027-04-01T00:00:00.000Z'), end: before };
    expect(linePeriodOf({ plan: BASIC, from: null, to: d('2027-04-16T00:00:00.000Z') }, period)).toEqual({
      start: period.start,
      end: d('2027-04-16T00:00:00.000Z'),
    });
    expect(
      linePeriodOf({ plan: BASIC, from: d('2027-03-01T00:00:00.000Z'), to: d('2027-03-20T00:00:00.000Z') }, period),
    ).toEqual({ start: period.start, end: period.start });
  });
});

describe('dueBillingStep with a pending plan change', () => {
  const base = {
    status: 'ACTIVE' as const,
    createdAt: d('2027-01-31T10:00:00.000Z'),
    trialEnd: null,
    trialWillEndNotifiedAt: null,
    currentPeriodStart: d('2027-02-28T10:00:00.000Z'),
    currentPeriodEnd: d('2027-03-31T10:00:00.000Z'),
    cancelAtPeriodEnd: false,
    billingCycles: null,
    billingAnchor: d('2027-01-31T10:00:00.000Z'),
    interval: 'monthly' as const,
    intervalCount: 1,
  };
  const at = d('2027-03-31T10:00:01.000Z');

  it('same interval: the renewal applies it on the anchor calendar (Mar 31 -> Apr 30)', () => {
    const step = dueBillingStep(
      { ...base, pendingPlanChangeAt: base.currentPeriodEnd, pendingInterval: 'monthly', pendingIntervalCount: 1 },
      at,
      2,
    );
    expect(step).toEqual({
      kind: 'renew',
      at: base.currentPeriodEnd,
      period: { start: base.currentPeriodEnd, end: d('2027-04-30T10:00:00.000Z') },
      pendingPlan: { newAnchor: null },
    });
  });

  it('another interval: the new period runs from the period end, the new anchor', () => {
    const step = dueBillingStep(
      { ...base, pendingPlanChangeAt: base.currentPeriodEnd, pendingInterval: 'annually', pendingIntervalCount: 1 },
      at,
      2,
    );
    expect(step).toEqual({
      kind: 'renew',
      at: base.currentPeriodEnd,
      period: { start: base.currentPeriodEnd, end: d('2028-03-31T10:00:00.000Z') },
      pendingPlan: { newAnchor: base.currentPeriodEnd },
    });
  });

  it('a cancel at period end wins; nothing pending renews as before', () => {
    const pending = {
      pendingPlanChangeAt: base.currentPeriodEnd,
      pendingInterval: 'annually' as const,
      pendingIntervalCount: 1,
    };
    expect(dueBillingStep({ ...base, ...pending, cancelAtPeriodEnd: true }, at, 2).kind).toBe('cancel_at_period_end');
    expect(dueBillingStep(base, at, 2)).toMatchObject({ kind: 'renew', pendingPlan: null });
  });
});
