/**
 * Billing periods (docs/api-behaviour.md §4): calendar arithmetic in UTC, always counted from the
 * subscription's billing anchor rather than from the previous period's end. Counting from the
 * anchor is what lets a Jan 31 subscription bill on Feb 28 and then return to Mar 31: stepping
 * period by period would drift to the 28th for ever.
 */

export const INTERVALS = ['daily', 'weekly', 'monthly', 'quarterly', 'biannually', 'annually'] as const;
export type Interval = (typeof INTERVALS)[number];

export const isInterval = (value: string): value is Interval => (INTERVALS as readonly string[]).includes(value);

const DAY_MS = 24 * 60 * 60 * 1000;

/** How one interval advances the calendar: a number of days or of months. */
const INTERVAL_STEP: Record<Interval, { days: number } | { months: number }> = {
  daily: { days: 1 },
  weekly: { days: 7 },
  monthly: { months: 1 },
  quarterly: { months: 3 },
  biannually: { months: 6 },
  annually: { months: 12 },
};

const daysInMonth = (year: number, monthIndex: number) => new Date(Date.UTC(year, monthIndex + 1, 0)).getUTCDate();

/** `anchor` plus `months` calendar months; a day the target month lacks clamps to its last day. */
function addMonthsClamped(anchor: Date, months: number): Date {
  const totalMonths = anchor.getUTCFullYear() * 12 + anchor.getUTCMonth() + months;
  const year = Math.floor(totalMonths / 12);
  const month = totalMonths - year * 12;
  const day = Math.min(anchor.getUTCDate(), daysInMonth(year, month));
  return new Date(
    Date.UTC(
      year,
      month,
      day,
      anchor.getUTCHours(),
      anchor.getUTCMinutes(),
      anchor.getUTCSeconds(),
      anchor.getUTCMilliseconds(),
    ),
  );
}

/**
 * The end of the `n`th period after `anchor` (n = 0 is the anchor itself). Days are exact
 * 24-hour days: UTC has no daylight-saving shifts.
 */
export function addBillingPeriods(anchor: Date, interval: Interval, intervalCount: number, n: number): Date {
  if (!Number.isInteger(intervalCount) || intervalCount < 1) throw new RangeError('intervalCount must be >= 1');
  if (!Number.isInteger(n) || n < 0) throw new RangeError('n must be a non-negative integer');
  const step = INTERVAL_STEP[interval];
  if ('days' in step) return new Date(anchor.getTime() + step.days * intervalCount * n * DAY_MS);
  return addMonthsClamped(anchor, step.months * intervalCount * n);
}

export interface BillingPeriod {
  start: Date;
  end: Date;
}

/** The `index`th period (0 = the first) of a subscription anchored at `anchor`. */
export function periodAt(anchor: Date, interval: Interval, intervalCount: number, index: number): BillingPeriod {
  return {
    start: addBillingPeriods(anchor, interval, intervalCount, index),
    end: addBillingPeriods(anchor, interval, intervalCount, index + 1),
  };
}

/** A trial lasts whole days from its start (docs/api-behaviour.md §16.6: the trial window is the period). */
export const trialWindow = (start: Date, trialDays: number): BillingPeriod => ({
  start,
  end: addBillingPeriods(start, 'daily', 1, trialDays),
});

/**
 * The first period boundary strictly after `after`, counted from the billing anchor (so month-end
 * clamping never drifts). Starts near the answer instead of walking from the anchor.
 */
export function nextPeriodBoundary(anchor: Date, interval: Interval, intervalCount: number, after: Date): Date {
  const step = INTERVAL_STEP[interval];
  const longestPeriodMs = ('days' in step ? step.days : 31 * step.months) * DAY_MS * intervalCount;
  let n = Math.max(1, Math.floor((after.getTime() - anchor.getTime()) / longestPeriodMs));
  while (addBillingPeriods(anchor, interval, intervalCount, n).getTime() <= after.getTime()) n += 1;
  return addBillingPeriods(anchor, interval, intervalCount, n);
}
