import { shareOfAmount } from '@billing/platform';
import { periodAt, type BillingPeriod, type Interval } from './periods';

/**
 * Proration of an immediate plan change (docs/api-behaviour.md §18, 16.24). Pure: amounts in
 * minor units, time in whole seconds, each line rounded once (half away from zero).
 */

/** What proration needs to know of a plan: its price for one period, and how long a period is. */
export interface ProratedPlan {
  name: string;
  amount: number;
  interval: Interval;
  intervalCount: number;
}

/** A line of a plan change's invoice (the shape of an invoice line, before it is stored). */
export interface PlanChangeLine {
  type: 'PRORATION' | 'SUBSCRIPTION';
  description: string;
  /** Exact decimal text; always "1" here (the amount is the line's own). */
  quantity: string;
  unitAmount: number;
  amount: number;
  periodStart: Date;
  periodEnd: Date;
}

export interface ProrationInput {
  oldPlan: ProratedPlan;
  newPlan: ProratedPlan;
  /** The current period [start, end), which the change falls in. */
  period: BillingPeriod;
  /** The change instant: period.start <= at < period.end. */
  at: Date;
  /**
   * P, what the customer paid for the current period and the platform still holds
   * (period-payment.ts): the unused-time credit is its share, never the list price's, so a
   * period paid at 0 (a 100% coupon) or not paid at all gives no credit.
   */
  paidForPeriod: number;
  /**
   * IMMEDIATE credits the old plan's unused time and (same interval) charges the new plan's
   * remaining time; NONE prorates nothing.
   */
  proration: 'IMMEDIATE' | 'NONE';
}

export interface Proration {
  /** When the interval (or interval_count) changes, the new period, starting at the change; else null. */
  newPeriod: BillingPeriod | null;
  lines: PlanChangeLine[];
}

const SECOND_MS = 1000;

/** Whether two plans bill on different calendars (another interval or interval_count). */
export const intervalChanges = (a: ProratedPlan, b: ProratedPlan) =>
  a.interval !== b.interval || a.intervalCount !== b.intervalCount;

/**
 * The period's length and its unused part, in whole seconds (16.24). The seconds elapsed are
 * counted whole (the second the change falls in has not been used yet), so the answer does not
 * depend on milliseconds: a preview and the change it shows, made a moment apart within the same
 * second of the period, prorate identically.
 */
export function unusedSeconds(period: BillingPeriod, at: Date): { unused: number; total: number } {
  const start = period.start.getTime();
  const end = period.end.getTime();
  if (!(start <= at.getTime() && at.getTime() < end)) {
    throw new RangeError(
      `the change ${at.toISOString()} is outside the period [${period.start.toISOString()}, ${period.end.toISOString()})`,
    );
  }
  const total = Math.floor((end - start) / SECOND_MS);
  const elapsed = Math.floor((at.getTime() - start) / SECOND_MS);
  return { unused: total - elapsed, total };
}

/**
 * The moment a change made at `at` takes effect: the start of the second of the period it falls
 * in (seconds counted from the period's start). A preview and the change it shows, made within
 * the same second, then have the same lines to the millisecond, and the change's invoice, its new
 * period and the plan history all start there.
 */
export function secondOf(period: BillingPeriod, at: Date): Date {
  const start = period.start.getTime();
  return new Date(start + Math.floor((at.getTime() - start) / SECOND_MS) * SECOND_MS);
}

/** amount x unused / total, rounded once half away from zero to whole minor units. */
export function prorate(amount: number, unused: number, total: number): number {
  return shareOfAmount(amount, unused, total);
}

/** A credit of `amount`: its negative, never -0 (JSON and equality checks would see it). */
const credit = (amount: number) => (amount === 0 ? 0 : -amount);

/**
 * The lines an immediate change makes at `at`:
 *  - same interval, IMMEDIATE: "Unused time on <old>" = -(P x unused / period) and
 *    "Remaining time on <new>" = +(new price x unused / period), both over [at, period end);
 *  - same interval, NONE: no lines (the new price applies from the next renewal);
 *  - another interval: a new period [at, at + the new interval) starts now and its full price is
 *    a SUBSCRIPTION line; IMMEDIATE adds "Unused time on <old>" as a credit before it.
 */
export function prorationLines(input: ProrationInput): Proration {
  const { oldPlan, newPlan, period, at, proration, paidForPeriod } = input;
  const { unused, total } = unusedSeconds(period, at);
  const rest: BillingPeriod = { start: at, end: period.end };
  const line = (
    type: PlanChangeLine['type'],
    description: string,
    amount: number,
    window: BillingPeriod,
  ): PlanChangeLine => ({
    type,
    description,
    quantity: '1',
    unitAmount: amount,
    amount,
    periodStart: window.start,
    periodEnd: window.end,
  });
  const unusedLine = () =>
    line('PRORATION', `Unused time on ${oldPlan.name}`, credit(prorate(paidForPeriod, unused, total)), rest);

  if (!intervalChanges(oldPlan, newPlan)) {
    if (proration === 'NONE') return { newPeriod: null, lines: [] };
    return {
      newPeriod: null,
      lines: [
        unusedLine(),
        line('PRORATION', `Remaining time on ${newPlan.name}`, prorate(newPlan.amount, unused, total), rest),
      ],
    };
  }
  const newPeriod = periodAt(at, newPlan.interval, newPlan.intervalCount, 0);
  const fullPeriod = line('SUBSCRIPTION', newPlan.name, newPlan.amount, newPeriod);
  return { newPeriod, lines: proration === 'IMMEDIATE' ? [unusedLine(), fullPeriod] : [fullPeriod] };
}
