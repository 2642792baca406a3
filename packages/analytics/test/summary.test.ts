import { subscriberChurnRate30d, summariseMrr } from '../src';

// docs/api-behaviour.md §25: arr, arpu and the 30-day subscriber churn rate.

describe('arr = 12 x mrr; arpu = mrr / customers, rounded like money, 0 when none', () => {
  it.each<[number, number, number, number]>([
    // mrr, customers, arr, arpu
    [10000, 3, 120000, 3333],
    [20000, 3, 240000, 6667],
    [10001, 2, 120012, 5001],
    [10000, 1, 120000, 10000],
    [0, 0, 0, 0],
    [0, 4, 0, 0],
  ])('mrr %d, %d customers -> arr %d, arpu %d', (mrr, customers, arr, arpu) => {
    expect(summariseMrr(mrr, customers)).toEqual({ mrr, arr, customers, arpu });
  });

  it('refuses what is not a count', () => {
    expect(() => summariseMrr(-1, 1)).toThrow(RangeError);
    expect(() => summariseMrr(100, 1.5)).toThrow(RangeError);
  });
});

describe('subscriber_churn_rate_30d = churned / (contributing 30 days ago + new), 4 decimals', () => {
  it.each<[number, number, number, number]>([
    // churned, contributing 30 days ago, new, rate
    [1, 9, 1, 0.1],
    [1, 3, 0, 0.3333],
    [2, 3, 0, 0.6667],
    [1, 7, 0, 0.1429],
    [0, 10, 5, 0],
    [0, 0, 0, 0],
    [3, 3, 0, 1],
    // A reactivated subscription that churned again is not in the denominator: capped at 1.
    [5, 2, 1, 1],
    // 1 / 20000 = 0.00005: half away from zero.
    [1, 20000, 0, 0.0001],
  ])('%d churned of %d + %d new -> %d', (churned, contributingAtStart, added, rate) => {
    expect(subscriberChurnRate30d({ churned, contributingAtStart, new: added })).toBe(rate);
  });

  it('refuses what is not a count', () => {
    expect(() => subscriberChurnRate30d({ churned: -1, contributingAtStart: 1, new: 0 })).toThrow(RangeError);
  });
});
