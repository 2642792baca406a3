import {
  classifyMovement,
  MonthRangeError,
  monthsOfRange,
  mrrSeries,
  NOT_CONTRIBUTING,
  type MrrState,
  type Movement,
} from '../src';

// docs/api-behaviour.md §25: movements per subscription, and the month-by-month series.

const on = (mrr: number): MrrState => ({ contributing: true, mrr });
const off = NOT_CONTRIBUTING;

describe('a period is classified per subscription from its two ends', () => {
  it.each<[string, MrrState, MrrState, boolean, Movement]>([
    ['never contributed', off, off, false, null],
    ['stopped before the period, still stopped', off, off, true, null],
    ['first contribution: new', off, on(5000), false, { kind: 'new', amount: 5000 }],
    ['contributes again after stopping: reactivation', off, on(5000), true, { kind: 'reactivation', amount: 5000 }],
    ['stopped contributing: churned', on(5000), off, true, { kind: 'churned', amount: 5000 }],
    ['an upgrade: expansion', on(5000), on(7000), true, { kind: 'expansion', amount: 2000 }],
    ['a downgrade: contraction', on(7000), on(5000), true, { kind: 'contraction', amount: 2000 }],
    ['unchanged', on(5000), on(5000), true, null],
    ['a free (100% FOREVER) subscription starts: new, of 0', off, on(0), false, { kind: 'new', amount: 0 }],
    ['a free subscription stops: churned, of 0', on(0), off, true, { kind: 'churned', amount: 0 }],
    [
      'a coupon ends its MRR at 0 but it still contributes',
      on(5000),
      on(0),
      true,
      { kind: 'contraction', amount: 5000 },
    ],
  ])('%s', (_, start, end, before, expected) => {
    expect(classifyMovement(start, end, before)).toEqual(expected);
  });

  it('refuses a state that does not contribute yet has an MRR, or a negative MRR', () => {
    expect(() => classifyMovement({ contributing: false, mrr: 100 }, off, false)).toThrow(RangeError);
    expect(() => classifyMovement(on(-1), off, false)).toThrow(RangeError);
  });
});

describe('a range of months: YYYY-MM, from <= to, at most 36 months', () => {
  it('lists every month, oldest first, across a year end', () => {
    expect(monthsOfRange('2026-11', '2027-02')).toEqual([
      { year: 2026, month: 11 },
      { year: 2026, month: 12 },
      { year: 2027, month: 1 },
      { year: 2027, month: 2 },
    ]);
    expect(monthsOfRange('2026-05', '2026-05')).toEqual([{ year: 2026, month: 5 }]);
    expect(monthsOfRange('2024-01', '2026-12')).toHaveLength(36);
  });

  it.each<[string, string, string, string]>([
    ['37 months', '2024-01', '2027-01', 'RANGE_TOO_LONG'],
    ['from after to', '2026-02', '2026-01', 'FROM_AFTER_TO'],
    ['month 13', '2026-13', '2026-12', 'INVALID_MONTH'],
    ['month 00', '2026-01', '2026-00', 'INVALID_MONTH'],
    ['one digit', '2026-1', '2026-12', 'INVALID_MONTH'],
    ['two-digit year', '26-01', '2026-12', 'INVALID_MONTH'],
    ['a date', '2026-01-01', '2026-12', 'INVALID_MONTH'],
    ['empty', '', '2026-12', 'INVALID_MONTH'],
  ])('%s -> %s', (_, from, to, reason) => {
    let error: unknown;
    try {
      monthsOfRange(from, to);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MonthRangeError);
    expect((error as MonthRangeError).reason).toBe(reason);
  });
});

describe('the month-by-month series', () => {
  const at = (iso: string) => Date.parse(iso);
  // A: new in January at 10000, upgraded to 15000 in February, cancelled in March, back in May.
  const a = [
    { at: at('2026-01-10T00:00:00Z'), ...on(10000) },
    { at: at('2026-02-15T00:00:00Z'), ...on(15000) },
    { at: at('2026-03-01T00:00:00Z'), ...off },
    { at: at('2026-05-20T00:00:00Z'), ...on(15000) },
  ];
  // B: contributing since before the range at 8000, downgraded to 5000 in April.
  const b = [
    { at: at('2025-06-01T00:00:00Z'), ...on(8000) },
    { at: at('2026-04-30T23:59:59.999Z'), ...on(5000) },
  ];
  // C: starts and stops inside January: moves nothing.
  const c = [
    { at: at('2026-01-05T00:00:00Z'), ...on(3000) },
    { at: at('2026-01-25T00:00:00Z'), ...off },
  ];

  it('classifies each month, hand-worked', () => {
    const series = mrrSeries('2026-01', '2026-05', [a, b, c], at('2026-12-01T00:00:00Z'));
    const row = (
      month: string,
      startMrr: number,
      mrr: number,
      moves: Partial<Record<string, number>>,
      active: number,
    ) => ({
      month,
      startMrr,
      mrr,
      new: 0,
      expansion: 0,
      contraction: 0,
      churned: 0,
      reactivation: 0,
      ...moves,
      activeSubscriptions: active,
    });
    expect(series).toEqual([
      row('2026-01', 8000, 18000, { new: 10000 }, 2),
      row('2026-02', 18000, 23000, { expansion: 5000 }, 2),
      // A change at midnight on the 1st belongs to the month it opens.
      row('2026-03', 23000, 8000, { churned: 15000 }, 1),
      row('2026-04', 8000, 5000, { contraction: 3000 }, 1),
      row('2026-05', 5000, 20000, { reactivation: 15000 }, 2),
    ]);
  });

  it('ends the current month at asOf, and repeats the state at asOf in months after it', () => {
    const series = mrrSeries('2026-05', '2026-06', [a], at('2026-05-10T00:00:00Z'));
    expect(series.map((m) => [m.month, m.startMrr, m.mrr, m.reactivation])).toEqual([
      ['2026-05', 0, 0, 0],
      ['2026-06', 0, 0, 0],
    ]);
    const later = mrrSeries('2026-05', '2026-06', [a], at('2026-05-20T00:00:00Z'));
    expect(later.map((m) => [m.month, m.startMrr, m.mrr, m.reactivation])).toEqual([
      ['2026-05', 0, 15000, 15000],
      ['2026-06', 15000, 15000, 0],
    ]);
  });

  it('refuses a history that is not oldest first, and a refused range', () => {
    expect(() => mrrSeries('2026-01', '2026-02', [[a[1], a[0]]], Date.now())).toThrow(RangeError);
    expect(() => mrrSeries('2026-02', '2026-01', [a], Date.now())).toThrow(MonthRangeError);
  });
});
