import { NO_TAX } from '@billing/platform';
import {
  monthlyRecurringRevenue,
  SUBSCRIPTION_STATUSES,
  type CouponDuration,
  type MrrSubscription,
  type PlanInterval,
  type SubscriptionStatus,
} from '../src';
import { taxedBy, taxRateOf } from '@billing/testing';

// Hand-worked rows of docs/api-behaviour.md §25: amounts in minor units (10000 = 100.00).

const plan = (amount: number, interval: PlanInterval = 'monthly', intervalCount = 1) => ({
  amount,
  interval,
  intervalCount,
});

const subscription = (overrides: Partial<MrrSubscription> = {}): MrrSubscription => ({
  status: 'ACTIVE',
  plan: plan(10000),
  coupon: null,
  tax: NO_TAX,
  ...overrides,
});

const percentOff = (percent: string, duration: CouponDuration) => ({ percentOff: percent, amountOff: null, duration });
const amountOff = (amount: number, duration: CouponDuration) => ({ percentOff: null, amountOff: amount, duration });

const rate = taxRateOf;
const taxed = taxedBy;

describe('MRR normalises the plan amount to a month (docs/api-behaviour.md §25)', () => {
  it.each<[string, PlanInterval, number, number, number]>([
    // interval, interval_count, amount, MRR: worked by hand
    ['monthly x 1', 'monthly', 1, 500000, 500000],
    ['daily: 1000 x 365/12 = 30416.67', 'daily', 1, 1000, 30417],
    ['weekly: 1000 x 52/12 = 4333.33', 'weekly', 1, 1000, 4333],
    ['quarterly: 30000 / 3', 'quarterly', 1, 30000, 10000],
    ['biannually: 60001 / 6 = 10000.17', 'biannually', 1, 60001, 10000],
    ['annually: 120006 / 12 = 10000.5, half away from zero', 'annually', 1, 120006, 10001],
    ['annually: 120005 / 12 = 10000.42', 'annually', 1, 120005, 10000],
    ['every 3 months: 30000 / 3', 'monthly', 3, 30000, 10000],
    ['every 2 weeks: 1000 x 52/24 = 2166.67', 'weekly', 2, 1000, 2167],
    ['every 7 days: 700 x 365/84 = 3041.67', 'daily', 7, 700, 3042],
    ['every 2 quarters: 60000 / 6', 'quarterly', 2, 60000, 10000],
    ['every 2 half-years: 120000 / 12', 'biannually', 2, 120000, 10000],
    ['every 2 years: 240000 / 24', 'annually', 2, 240000, 10000],
    ['every 52 weeks: 5200 x 52/624 = 433.33', 'weekly', 52, 5200, 433],
    ['a free plan', 'monthly', 1, 0, 0],
    ['daily: 6 x 365/12 = 182.5, half away from zero', 'daily', 1, 6, 183],
  ])('%s', (_, interval, intervalCount, amount, expected) => {
    expect(monthlyRecurringRevenue(subscription({ plan: plan(amount, interval, intervalCount) }))).toBe(expected);
  });
});

describe('only ACTIVE and PAST_DUE subscriptions contribute', () => {
  const expected: Record<SubscriptionStatus, number> = {
    ACTIVE: 10000,
    PAST_DUE: 10000,
    TRIALING: 0,
    PAUSED: 0,
    CANCELLED: 0,
    EXPIRED: 0,
  };
  it.each(SUBSCRIPTION_STATUSES.map((status) => [status, expected[status]] as const))('%s -> %d', (status, mrr) => {
    expect(monthlyRecurringRevenue(subscription({ status }))).toBe(mrr);
  });
});

describe('a FOREVER coupon reduces MRR as §19 applies it to each invoice; ONCE and REPEATING do not', () => {
  it.each<[string, Partial<MrrSubscription>, number]>([
    ['FOREVER 25% of 10000', { coupon: percentOff('25', 'FOREVER') }, 7500],
    ['ONCE 25%', { coupon: percentOff('25', 'ONCE') }, 10000],
    ['REPEATING 25%', { coupon: percentOff('25', 'REPEATING') }, 10000],
    [
      'FOREVER 12.5% of 999: 124.875 off rounds to 125',
      { plan: plan(999), coupon: percentOff('12.5', 'FOREVER') },
      874,
    ],
    ['FOREVER 100%', { coupon: percentOff('100', 'FOREVER') }, 0],
    ['FOREVER 1000 off', { coupon: amountOff(1000, 'FOREVER') }, 9000],
    ['ONCE 1000 off', { coupon: amountOff(1000, 'ONCE') }, 10000],
    ['REPEATING 1000 off', { coupon: amountOff(1000, 'REPEATING') }, 10000],
    ['FOREVER 20000 off a 10000 plan: capped at the price', { coupon: amountOff(20000, 'FOREVER') }, 0],
    [
      'FOREVER 1000 off an annual 120000: off each invoice, (120000 - 1000) / 12 = 9916.67',
      { plan: plan(120000, 'annually'), coupon: amountOff(1000, 'FOREVER') },
      9917,
    ],
    [
      'FOREVER 10% off a weekly 1000: 900 x 52/12 = 3900',
      { plan: plan(1000, 'weekly'), coupon: percentOff('10', 'FOREVER') },
      3900,
    ],
    ['a coupon on a trialing subscription', { status: 'TRIALING', coupon: percentOff('25', 'FOREVER') }, 0],
  ])('%s', (_, overrides, expected) => {
    expect(monthlyRecurringRevenue(subscription(overrides))).toBe(expected);
  });
});

describe('MRR excludes tax: an exclusive rate adds none, an inclusive rate is taken out as §21 does', () => {
  it.each<[string, Partial<MrrSubscription>, number]>([
    ['exclusive 7.5% on 10000', { tax: taxed(rate('7.5', false)) }, 10000],
    ['inclusive 7.5% on 10750: 750 of tax', { plan: plan(10750), tax: taxed(rate('7.5', true)) }, 10000],
    ['inclusive 7.5% on 10000: 697.67 of tax rounds to 698', { tax: taxed(rate('7.5', true)) }, 9302],
    [
      'inclusive 5% and 2.5% on 10750: 500 and 250, each rounded once',
      { plan: plan(10750), tax: taxed(rate('5', true), rate('2.5', true)) },
      10000,
    ],
    [
      'inclusive 7.5% and exclusive 10% on 10750: only the inclusive comes out',
      { plan: plan(10750), tax: taxed(rate('7.5', true), rate('10', false)) },
      10000,
    ],
    [
      'inclusive 7.5% on an annual 129000: 120000 net / 12',
      { plan: plan(129000, 'annually'), tax: taxed(rate('7.5', true)) },
      10000,
    ],
    [
      'FOREVER 10% then inclusive 7.5% on 10750: 9675 taxable, 675 of tax',
      { plan: plan(10750), coupon: percentOff('10', 'FOREVER'), tax: taxed(rate('7.5', true)) },
      9000,
    ],
    [
      'an EXEMPT customer pays no tax: the inclusive price is all net',
      { plan: plan(10750), tax: { rates: [rate('7.5', true)], exempt: 'EXEMPT' } },
      10750,
    ],
    [
      'a REVERSE (reverse charge) customer likewise',
      { plan: plan(10750), tax: { rates: [rate('7.5', true)], exempt: 'REVERSE' } },
      10750,
    ],
    [
      'inclusive tax on a PAST_DUE subscription',
      { status: 'PAST_DUE', plan: plan(10750), tax: taxed(rate('7.5', true)) },
      10000,
    ],
    ['inclusive tax on a CANCELLED subscription', { status: 'CANCELLED', tax: taxed(rate('7.5', true)) }, 0],
  ])('%s', (_, overrides, expected) => {
    expect(monthlyRecurringRevenue(subscription(overrides))).toBe(expected);
  });
});

describe('refuses what is not a plan', () => {
  it.each<[string, Partial<MrrSubscription>]>([
    ['a negative amount', { plan: plan(-1) }],
    ['a fractional amount', { plan: plan(10.5) }],
    ['interval_count 0', { plan: plan(10000, 'monthly', 0) }],
    ['a fractional interval_count', { plan: plan(10000, 'monthly', 1.5) }],
  ])('%s', (_, overrides) => {
    expect(() => monthlyRecurringRevenue(subscription(overrides))).toThrow(RangeError);
  });
});
