import { DomainError } from '@billing/platform';
import { NO_TAX, totalInvoice } from '../src/domain/invoice-totals';
import {
  discountAfterInvoice,
  discountFromCoupon,
  nextInvoiceDiscount,
  type CouponTerms,
  type SubscriptionDiscount,
} from '../src/domain/subscription-discount';

const COUPON_ID = '0b0e8a55-3f7e-4f0e-9a57-5b1f6f3c2d11';
const coupon = (terms: Partial<CouponTerms>): CouponTerms => ({
  couponId: COUPON_ID,
  code: 'WELCOME25',
  duration: 'ONCE',
  ...terms,
});

/**
 * Bills `bases` (the SUBSCRIPTION + USAGE amount of each invoice, minor units) one after the other
 * the way every invoice path does: the discount's terms for this invoice, the invoice's money, then
 * the discount after it (used up only when the invoice got a DISCOUNT line). Returns what each
 * invoice came to and what the subscription shows as remaining after it.
 */
function bill(start: SubscriptionDiscount | null, bases: number[]) {
  let discount = start;
  return bases.map((base) => {
    const terms = nextInvoiceDiscount(discount);
    const totals = totalInvoice([{ type: 'SUBSCRIPTION', amount: base }], terms, NO_TAX, 0);
    discount = discountAfterInvoice(discount, totals.discount > 0);
    return { amount: totals.amount, remaining: discount === null ? 'none' : discount.periodsRemaining };
  });
}

const MONTH = 1_000_000; // 10,000.00 NGN

describe('a discount over the invoices of a subscription (docs/api-behaviour.md §19)', () => {
  it.each([
    [
      '25% REPEATING 3: three invoices of 7,500, then 10,000',
      coupon({ percentOff: '25', duration: 'REPEATING', durationInPeriods: 3 }),
      [MONTH, MONTH, MONTH, MONTH, MONTH],
      [
        { amount: 750_000, remaining: 2 },
        { amount: 750_000, remaining: 1 },
        { amount: 750_000, remaining: 'none' },
        { amount: MONTH, remaining: 'none' },
        { amount: MONTH, remaining: 'none' },
      ],
    ],
    [
      'ONCE: the first invoice only',
      coupon({ percentOff: '50', duration: 'ONCE' }),
      [MONTH, MONTH],
      [
        { amount: 500_000, remaining: 'none' },
        { amount: MONTH, remaining: 'none' },
      ],
    ],
    [
      'FOREVER: every invoice, never ends',
      coupon({ percentOff: '12.5', duration: 'FOREVER' }),
      [MONTH, MONTH, MONTH],
      [
        { amount: 875_000, remaining: null },
        { amount: 875_000, remaining: null },
        { amount: 875_000, remaining: null },
      ],
    ],
    [
      'a free period (nothing to discount, no DISCOUNT line) does not use a period up',
      coupon({ percentOff: '25', duration: 'REPEATING', durationInPeriods: 2 }),
      [0, MONTH, 0, MONTH, MONTH],
      [
        { amount: 0, remaining: 2 },
        { amount: 750_000, remaining: 1 },
        { amount: 0, remaining: 1 },
        { amount: 750_000, remaining: 'none' },
        { amount: MONTH, remaining: 'none' },
      ],
    ],
    [
      'amount_off larger than the invoice: 0, never below; ONCE used up',
      coupon({ amountOff: 1_500_000, currency: 'NGN', duration: 'ONCE' }),
      [MONTH, MONTH],
      [
        { amount: 0, remaining: 'none' },
        { amount: MONTH, remaining: 'none' },
      ],
    ],
    [
      'percent_off rounds once, half away from zero: 33.33% of 1.01 = 0.34 (0.336633)',
      coupon({ percentOff: '33.33', duration: 'REPEATING', durationInPeriods: 1 }),
      [101, 101],
      [
        { amount: 67, remaining: 'none' },
        { amount: 101, remaining: 'none' },
      ],
    ],
  ])('%s', (_name, terms, bases, expected) => {
    expect(bill(discountFromCoupon(terms, 'NGN'), bases)).toEqual(expected);
  });

  it('no discount: every invoice at full price', () => {
    expect(bill(null, [MONTH, MONTH])).toEqual([
      { amount: MONTH, remaining: 'none' },
      { amount: MONTH, remaining: 'none' },
    ]);
  });

  it('describes the DISCOUNT line by code and terms', () => {
    expect(nextInvoiceDiscount(discountFromCoupon(coupon({ percentOff: '25' }), 'NGN'))).toEqual({
      percentOff: '25',
      amountOff: null,
      description: 'WELCOME25 (25% off)',
    });
    expect(
      nextInvoiceDiscount(discountFromCoupon(coupon({ amountOff: 200_050, currency: 'NGN' }), 'NGN'))?.description,
    ).toBe('WELCOME25 (2000.50 NGN off)');
  });

  it('starts ONCE at 1, REPEATING at N and FOREVER without an end', () => {
    const remaining = (terms: Partial<CouponTerms>) =>
      discountFromCoupon(coupon({ percentOff: '10', ...terms }), 'NGN').periodsRemaining;
    expect(remaining({ duration: 'ONCE' })).toBe(1);
    expect(remaining({ duration: 'REPEATING', durationInPeriods: 7 })).toBe(7);
    expect(remaining({ duration: 'FOREVER' })).toBeNull();
  });

  it('refuses an amount off in another currency (400) and a malformed snapshot (422)', () => {
    const kind = (terms: Partial<CouponTerms>) => {
      try {
        discountFromCoupon(coupon(terms), 'NGN');
        return 'accepted';
      } catch (err) {
        return (err as DomainError).kind;
      }
    };
    expect(kind({ amountOff: 500, currency: 'USD' })).toBe('failed_precondition');
    expect(kind({ percentOff: '25', amountOff: 500, currency: 'NGN' })).toBe('invalid_argument');
    expect(kind({})).toBe('invalid_argument');
    expect(kind({ percentOff: '100.01' })).toBe('invalid_argument');
    expect(kind({ percentOff: '12.345' })).toBe('invalid_argument');
    expect(kind({ percentOff: '25', duration: 'REPEATING' })).toBe('invalid_argument');
    expect(kind({ percentOff: '100' })).toBe('accepted');
  });
});
