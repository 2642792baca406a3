import type { InvoiceTax } from '@billing/platform';
import { taxedBy, taxRateOf } from '@billing/testing';
import { discountColumns, discountFromCoupon, type CouponTerms } from '../src/domain/subscription-discount';
import { subscriptionMrrFact, type SubscriptionMrrTerms } from '../src/domain/subscription-mrr';

const COUPON_ID = '0b0e8a55-3f7e-4f0e-9a57-5b1f6f3c2d11';
const SUBSCRIPTION_ID = '6f1c2b8e-3a4d-4c5e-8f90-a1b2c3d4e5f6';
const CUSTOMER_ID = '7a2d3c9f-4b5e-4d6f-9a01-b2c3d4e5f6a7';

/** A subscription's row as billing keeps it: 10,000.00 NGN a month, ACTIVE, no discount. */
const subscription = (
  terms: Partial<SubscriptionMrrTerms> = {},
  coupon: Partial<CouponTerms> | null = null,
): SubscriptionMrrTerms => ({
  id: SUBSCRIPTION_ID,
  customerId: CUSTOMER_ID,
  currency: 'NGN',
  status: 'ACTIVE',
  amount: 1_000_000,
  interval: 'monthly',
  intervalCount: 1,
  ...discountColumns(
    coupon && discountFromCoupon({ couponId: COUPON_ID, code: 'OFF', duration: 'FOREVER', ...coupon }, 'NGN'),
  ),
  ...terms,
});

const NONE: InvoiceTax = { rates: [], exempt: 'NONE' };
const inclusiveVat = taxedBy(taxRateOf('7.5', true));

/**
 * The MRR fact of a subscription's events (docs/api-behaviour.md §25): its current plan, its
 * discount (FOREVER only) and its next invoice's tax, through monthlyRecurringRevenue.
 */
describe('the MRR fact of a subscription', () => {
  it.each<[string, SubscriptionMrrTerms, InvoiceTax, boolean, number]>([
    ['ACTIVE, no coupon, untaxed: the price', subscription(), NONE, true, 1_000_000],
    ['PAST_DUE still contributes', subscription({ status: 'PAST_DUE' }), NONE, true, 1_000_000],
    ['TRIALING contributes nothing', subscription({ status: 'TRIALING' }), NONE, false, 0],
    ['PAUSED contributes nothing', subscription({ status: 'PAUSED' }), NONE, false, 0],
    ['CANCELLED contributes nothing', subscription({ status: 'CANCELLED' }), NONE, false, 0],
    // 10,000.00 less 25% = 7,500.00; 7,500 x 7.5 / 107.5 = 523.26 of inclusive VAT: 6,976.74.
    ['FOREVER 25% and inclusive 7.5% VAT', subscription({}, { percentOff: '25' }), inclusiveVat, true, 697_674],
    // An EXEMPT customer pays no tax: the whole discounted price counts.
    [
      'the same for an EXEMPT customer',
      subscription({}, { percentOff: '25' }),
      { ...inclusiveVat, exempt: 'EXEMPT' },
      true,
      750_000,
    ],
    // An exclusive rate adds to the invoice, never to MRR.
    ['exclusive VAT adds nothing', subscription(), taxedBy(taxRateOf('7.5', false)), true, 1_000_000],
    [
      'a ONCE coupon does not reduce it',
      subscription({}, { percentOff: '25', duration: 'ONCE' }),
      NONE,
      true,
      1_000_000,
    ],
    [
      'nor a REPEATING one',
      subscription({}, { percentOff: '25', duration: 'REPEATING', durationInPeriods: 3 }),
      NONE,
      true,
      1_000_000,
    ],
    // (1,200.00 - 10.00) / 12 = 99.1666... -> 99.17.
    [
      'FOREVER 10.00 off an annual 1,200.00',
      subscription({ amount: 120_000, interval: 'annually' }, { amountOff: 1_000, currency: 'NGN' }),
      NONE,
      true,
      9_917,
    ],
    // 1,000.00 a week x 52 / 12 / 2 = 2,166.666... -> 2,166.67.
    ['every 2 weeks', subscription({ amount: 100_000, interval: 'weekly', intervalCount: 2 }), NONE, true, 216_667],
  ])('%s', (_label, terms, tax, contributing, mrr) => {
    expect(subscriptionMrrFact(terms, tax)).toEqual({
      kind: 'subscription_mrr',
      subscription_id: SUBSCRIPTION_ID,
      customer_id: CUSTOMER_ID,
      currency: 'NGN',
      status: terms.status,
      contributing,
      mrr,
    });
  });
});
