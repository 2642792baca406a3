import { DomainError } from '@billing/platform';
import { normalizeInterval, refuseImmutableChanges, validateNewPlan } from '../src/domain/plan-rules';

const draft = {
  name: 'Pro',
  description: '',
  amount: 500050,
  currency: '',
  interval: '',
  intervalCount: 0,
  trialPeriodDays: 0,
};

describe('plan rules', () => {
  it('applies the defaults: NGN, monthly, interval_count 1', () => {
    expect(validateNewPlan(draft)).toMatchObject({
      currency: 'NGN',
      interval: 'monthly',
      intervalCount: 1,
      trialPeriodDays: 0,
    });
  });

  it.each([
    ['MONTHLY', 'monthly'],
    ['Yearly', 'annually'],
    ['annually', 'annually'],
    ['biannually', 'biannually'],
    ['fortnightly', null],
  ])('interval %p -> %p', (input, expected) => expect(normalizeInterval(input)).toBe(expected));

  it('reports every broken rule at once as field violations', () => {
    try {
      validateNewPlan({
        ...draft,
        name: '',
        amount: -1,
        currency: 'EUR',
        intervalCount: 53,
        trialPeriodDays: 731,
        metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])),
      });
      throw new Error('expected a DomainError');
    } catch (err) {
      expect(err).toBeInstanceOf(DomainError);
      expect((err as DomainError).violations.map((v) => v.loc[1])).toEqual([
        'name',
        'amount',
        'currency',
        'interval_count',
        'trial_period_days',
        'metadata',
      ]);
    }
  });

  it('refuses changes of price or billing fields and allows the rest', () => {
    expect(() => refuseImmutableChanges(['amount', 'name'])).toThrow(/immutable \(amount\)/);
    expect(() => refuseImmutableChanges(['usage_unit_amount'])).toThrow(DomainError);
    expect(() => refuseImmutableChanges(['name', 'metadata'])).not.toThrow();
  });
});
