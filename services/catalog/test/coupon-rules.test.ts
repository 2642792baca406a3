import { DomainError } from '@billing/platform';
import {
  normalizeCouponCode,
  parsePercentOff,
  redemptionRefusal,
  redemptionRefused,
  validateNewCoupon,
  type CouponDraft,
  type RedeemableCoupon,
} from '../src/domain/coupon-rules';

const NOW = new Date('2027-03-01T10:00:00.000Z');
const PLAN = '5d1f5a4e-0c4b-4d0a-9f0e-7a3b2c1d0e9f';
const OTHER_PLAN = '8a6c2b1d-3e4f-4a5b-8c7d-9e0f1a2b3c4d';

const draft = (fields: Partial<CouponDraft>): CouponDraft => ({
  code: 'welcome25',
  percentOff: '25',
  duration: 'ONCE',
  planIds: [],
  ...fields,
});

/** The 422 locations a draft breaks, or 'valid'. */
function violations(fields: Partial<CouponDraft>): string[] | 'valid' {
  try {
    validateNewCoupon(draft(fields), NOW);
    return 'valid';
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).kind).toBe('invalid_argument');
    return (err as DomainError).violations.map((v) => v.loc.slice(1).join('.'));
  }
}

describe('coupon rules (docs/api-behaviour.md §19)', () => {
  it('stores the code upper case and percent_off as canonical exact decimal text', () => {
    expect(validateNewCoupon(draft({ percentOff: '12.50' }), NOW)).toMatchObject({
      code: 'WELCOME25',
      percentOff: '12.5',
      amountOff: null,
      currency: null,
      duration: 'ONCE',
      durationInPeriods: null,
      maxRedemptions: null,
    });
    expect(normalizeCouponCode(' summer-sale_2027 ')).toBe('SUMMER-SALE_2027');
  });

  it.each([
    ['0.01', '0.01'],
    ['100', '100'],
    ['99.99', '99.99'],
    ['33.3', '33.3'],
    ['0', null],
    ['100.01', null],
    ['12.345', null],
    ['-5', null],
    ['1e1', null],
    ['abc', null],
  ])('percent_off %p -> %p', (input, expected) => expect(parsePercentOff(input)).toBe(expected));

  it.each<[string, Partial<CouponDraft>, string[] | 'valid']>([
    ['a 3-character code', { code: 'ABC' }, 'valid'],
    ['a 40-character code', { code: 'A'.repeat(40) }, 'valid'],
    ['a 2-character code', { code: 'AB' }, ['code']],
    ['a 41-character code', { code: 'A'.repeat(41) }, ['code']],
    ['a space in the code', { code: 'WELCOME 25' }, ['code']],
    ['a dot in the code', { code: 'WELCOME.25' }, ['code']],
    ['neither percent_off nor amount_off', { percentOff: undefined }, ['percent_off']],
    ['both percent_off and amount_off', { amountOff: 500, currency: 'NGN' }, ['amount_off']],
    ['amount_off with currency', { percentOff: undefined, amountOff: 200000, currency: 'ngn' }, 'valid'],
    ['amount_off without currency', { percentOff: undefined, amountOff: 200000 }, ['currency']],
    ['amount_off of 0', { percentOff: undefined, amountOff: 0, currency: 'NGN' }, ['amount_off']],
    ['an unknown currency', { percentOff: undefined, amountOff: 100, currency: 'EUR' }, ['currency']],
    ['currency with percent_off', { currency: 'NGN' }, ['currency']],
    ['percent_off above 100', { percentOff: '101' }, ['percent_off']],
    ['percent_off with 3 decimals', { percentOff: '10.125' }, ['percent_off']],
    ['REPEATING with duration_in_periods', { duration: 'REPEATING', durationInPeriods: 3 }, 'valid'],
    ['REPEATING with 120 periods', { duration: 'REPEATING', durationInPeriods: 120 }, 'valid'],
    ['REPEATING without duration_in_periods', { duration: 'REPEATING' }, ['duration_in_periods']],
    ['REPEATING with 121 periods', { duration: 'REPEATING', durationInPeriods: 121 }, ['duration_in_periods']],
    ['REPEATING with 0 periods', { duration: 'REPEATING', durationInPeriods: 0 }, ['duration_in_periods']],
    ['duration_in_periods with ONCE', { durationInPeriods: 3 }, ['duration_in_periods']],
    ['duration_in_periods with FOREVER', { duration: 'FOREVER', durationInPeriods: 3 }, ['duration_in_periods']],
    ['an unknown duration', { duration: 'MONTHLY' }, ['duration']],
    ['max_redemptions 1', { maxRedemptions: 1 }, 'valid'],
    ['max_redemptions 0', { maxRedemptions: 0 }, ['max_redemptions']],
    ['redeem_by in the past', { redeemBy: new Date(NOW.getTime() - 1) }, ['redeem_by']],
    ['redeem_by in the future', { redeemBy: new Date(NOW.getTime() + 1000) }, 'valid'],
    ['a plan id that is not a UUID', { planIds: [PLAN, 'nope'] }, ['plan_ids.1']],
  ])('%s', (_name, fields, expected) => expect(violations(fields)).toEqual(expected));

  it('reports every violation at once', () => {
    expect(violations({ code: 'x', percentOff: undefined, duration: 'REPEATING', maxRedemptions: 0 })).toEqual([
      'code',
      'percent_off',
      'duration_in_periods',
      'max_redemptions',
    ]);
  });

  describe('redemption', () => {
    const coupon = (fields: Partial<RedeemableCoupon>): RedeemableCoupon => ({
      code: 'WELCOME25',
      isActive: true,
      redeemBy: null,
      maxRedemptions: null,
      timesRedeemed: 0,
      planIds: [],
      amountOff: null,
      currency: null,
      ...fields,
    });
    const target = { planId: PLAN, currency: 'NGN', now: NOW };

    it.each<[string, Partial<RedeemableCoupon>, ReturnType<typeof redemptionRefusal>]>([
      ['an active coupon for every plan', {}, null],
      ['an inactive coupon', { isActive: false }, 'inactive'],
      ['redeem_by now: still redeemable', { redeemBy: NOW }, null],
      ['redeem_by passed', { redeemBy: new Date(NOW.getTime() - 1) }, 'expired'],
      ['the last redemption left', { maxRedemptions: 5, timesRedeemed: 4 }, null],
      ['no redemption left', { maxRedemptions: 5, timesRedeemed: 5 }, 'exhausted'],
      ['a coupon of this plan', { planIds: [PLAN] }, null],
      ['a coupon of another plan', { planIds: [OTHER_PLAN] }, 'plan_excluded'],
      ['an amount off in the plan currency', { amountOff: 100, currency: 'NGN' }, null],
      ['an amount off in another currency', { amountOff: 100, currency: 'USD' }, 'currency_mismatch'],
    ])('%s -> %p', (_name, fields, expected) => expect(redemptionRefusal(coupon(fields), target)).toBe(expected));

    it('says which rule refused, as a 400', () => {
      const details = (
        ['unknown', 'inactive', 'expired', 'exhausted', 'plan_excluded', 'currency_mismatch'] as const
      ).map((reason) => {
        const err = redemptionRefused(
          reason,
          'welcome25',
          { redeemBy: NOW, maxRedemptions: 5, currency: 'USD' },
          { currency: 'NGN' },
        );
        expect(err.kind).toBe('failed_precondition');
        return err.message;
      });
      expect(details).toEqual([
        'The coupon code WELCOME25 does not exist',
        'The coupon WELCOME25 is no longer active',
        'The coupon WELCOME25 expired: it could be redeemed until 2027-03-01T10:00:00.000Z',
        'The coupon WELCOME25 has been redeemed the maximum number of times (5)',
        'The coupon WELCOME25 does not apply to this plan',
        'The coupon WELCOME25 is for USD; this plan is billed in NGN',
      ]);
    });
  });
});
