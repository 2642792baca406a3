import { addBillingPeriods, periodAt, trialWindow } from '../src/domain/periods';

const utc = (iso: string) => new Date(iso);
const ends = (anchor: string, interval: Parameters<typeof addBillingPeriods>[1], count: number, n: number) =>
  Array.from({ length: n }, (_, i) => addBillingPeriods(utc(anchor), interval, count, i + 1).toISOString());

describe('billing periods: calendar arithmetic in UTC from the anchor', () => {
  it('clamps a Jan 31 monthly anchor to each month end and returns to the 31st (13 periods, leap 2028)', () => {
    expect(ends('2027-12-31T10:00:00.000Z', 'monthly', 1, 13)).toEqual([
      '2028-01-31T10:00:00.000Z',
      '2028-02-29T10:00:00.000Z',
      '2028-03-31T10:00:00.000Z',
      '2028-04-30T10:00:00.000Z',
      '2028-05-31T10:00:00.000Z',
      '2028-06-30T10:00:00.000Z',
      '2028-07-31T10:00:00.000Z',
      '2028-08-31T10:00:00.000Z',
      '2028-09-30T10:00:00.000Z',
      '2028-10-31T10:00:00.000Z',
      '2028-11-30T10:00:00.000Z',
      '2028-12-31T10:00:00.000Z',
      '2029-01-31T10:00:00.000Z',
    ]);
  });

  it('clamps Jan 31 -> Feb 28 in a common year and then goes back to Mar 31, Apr 30', () => {
    expect(ends('2027-01-31T00:00:00.000Z', 'monthly', 1, 3)).toEqual([
      '2027-02-28T00:00:00.000Z',
      '2027-03-31T00:00:00.000Z',
      '2027-04-30T00:00:00.000Z',
    ]);
  });

  it('keeps the anchor day for days every month has', () => {
    expect(ends('2026-11-15T08:30:00.000Z', 'monthly', 1, 3)).toEqual([
      '2026-12-15T08:30:00.000Z',
      '2027-01-15T08:30:00.000Z',
      '2027-02-15T08:30:00.000Z',
    ]);
  });

  it('steps quarterly by three months with the same clamping', () => {
    expect(ends('2027-11-30T12:00:00.000Z', 'quarterly', 1, 4)).toEqual([
      '2028-02-29T12:00:00.000Z',
      '2028-05-30T12:00:00.000Z',
      '2028-08-30T12:00:00.000Z',
      '2028-11-30T12:00:00.000Z',
    ]);
  });

  it('steps biannually by six months', () => {
    expect(ends('2026-08-31T00:00:00.000Z', 'biannually', 1, 2)).toEqual([
      '2027-02-28T00:00:00.000Z',
      '2027-08-31T00:00:00.000Z',
    ]);
  });

  it('bills an annual Feb 29 anchor on Feb 28 in common years and Feb 29 again in leap years', () => {
    expect(ends('2028-02-29T09:00:00.000Z', 'annually', 1, 4)).toEqual([
      '2029-02-28T09:00:00.000Z',
      '2030-02-28T09:00:00.000Z',
      '2031-02-28T09:00:00.000Z',
      '2032-02-29T09:00:00.000Z',
    ]);
  });

  it('counts weekly and daily periods in exact days, across month and year ends', () => {
    expect(ends('2026-12-24T23:59:59.999Z', 'weekly', 1, 3)).toEqual([
      '2026-12-31T23:59:59.999Z',
      '2027-01-07T23:59:59.999Z',
      '2027-01-14T23:59:59.999Z',
    ]);
    expect(ends('2028-02-27T06:00:00.000Z', 'daily', 1, 3)).toEqual([
      '2028-02-28T06:00:00.000Z',
      '2028-02-29T06:00:00.000Z',
      '2028-03-01T06:00:00.000Z',
    ]);
  });

  it('multiplies the step by interval_count', () => {
    expect(ends('2027-01-31T00:00:00.000Z', 'monthly', 2, 3)).toEqual([
      '2027-03-31T00:00:00.000Z',
      '2027-05-31T00:00:00.000Z',
      '2027-07-31T00:00:00.000Z',
    ]);
    expect(ends('2027-01-01T00:00:00.000Z', 'weekly', 2, 2)).toEqual([
      '2027-01-15T00:00:00.000Z',
      '2027-01-29T00:00:00.000Z',
    ]);
    expect(ends('2027-01-01T00:00:00.000Z', 'daily', 2, 2)).toEqual([
      '2027-01-03T00:00:00.000Z',
      '2027-01-05T00:00:00.000Z',
    ]);
    expect(ends('2028-02-29T00:00:00.000Z', 'annually', 2, 2)).toEqual([
      '2030-02-28T00:00:00.000Z',
      '2032-02-29T00:00:00.000Z',
    ]);
  });

  it('gives period n as [end of n-1, end of n], contiguous and counted from the anchor', () => {
    const anchor = utc('2027-01-31T00:00:00.000Z');
    expect(periodAt(anchor, 'monthly', 1, 0)).toEqual({ start: anchor, end: utc('2027-02-28T00:00:00.000Z') });
    expect(periodAt(anchor, 'monthly', 1, 1)).toEqual({
      start: utc('2027-02-28T00:00:00.000Z'),
      end: utc('2027-03-31T00:00:00.000Z'),
    });
    for (let i = 0; i < 24; i++) {
      expect(periodAt(anchor, 'monthly', 1, i).end).toEqual(periodAt(anchor, 'monthly', 1, i + 1).start);
    }
    expect(addBillingPeriods(anchor, 'monthly', 1, 0)).toEqual(anchor);
  });

  it('makes a trial window of whole days', () => {
    const start = utc('2026-11-21T10:00:00.000Z');
    expect(trialWindow(start, 14)).toEqual({ start, end: utc('2026-12-05T10:00:00.000Z') });
  });

  it('refuses nonsense counts', () => {
    expect(() => addBillingPeriods(utc('2027-01-01T00:00:00Z'), 'monthly', 0, 1)).toThrow(RangeError);
    expect(() => addBillingPeriods(utc('2027-01-01T00:00:00Z'), 'monthly', 1, -1)).toThrow(RangeError);
  });
});
