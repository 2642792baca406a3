/**
 * MRR movements (docs/api-behaviour.md §25): what changed a subscription's MRR between the start
 * and the end of a period, and the month-by-month series of a range.
 */

/** A subscription at one instant: whether it contributes to MRR, and its MRR (0 when it does not). */
export interface MrrState {
  contributing: boolean;
  /** Integer minor units, >= 0 (monthlyRecurringRevenue). */
  mrr: number;
}

export const NOT_CONTRIBUTING: MrrState = { contributing: false, mrr: 0 };

export const MOVEMENT_KINDS = ['new', 'expansion', 'contraction', 'churned', 'reactivation'] as const;
export type MovementKind = (typeof MOVEMENT_KINDS)[number];

/** One subscription's movement in a period: its kind and its amount (minor units, >= 0), or none. */
export type Movement = { kind: MovementKind; amount: number } | null;

/**
 * A subscription's movement in a period, from its states at the period's start and end
 * (docs/api-behaviour.md §25): `new` when it contributes at the end for the first time, `reactivation`
 * when it contributes at the end again after having stopped, `churned` when it contributed at the
 * start and no longer does (cancelled, expired, paused, trialing again), `expansion` / `contraction`
 * when it contributes at both and its MRR rose / fell. A period is judged by its two ends only, so
 * a subscription that starts and stops inside one period moves nothing, and the identity
 * end = start + new + expansion + reactivation - contraction - churned holds per subscription.
 * `contributedBefore` says whether it contributed at any time before the period's start.
 */
export function classifyMovement(start: MrrState, end: MrrState, contributedBefore: boolean): Movement {
  assertState(start);
  assertState(end);
  if (start.contributing && !end.contributing) return { kind: 'churned', amount: start.mrr };
  if (!start.contributing && end.contributing) {
    return { kind: contributedBefore ? 'reactivation' : 'new', amount: end.mrr };
  }
  if (!start.contributing || end.mrr === start.mrr) return null;
  return end.mrr > start.mrr
    ? { kind: 'expansion', amount: end.mrr - start.mrr }
    : { kind: 'contraction', amount: start.mrr - end.mrr };
}

function assertState(state: MrrState): void {
  if (!Number.isSafeInteger(state.mrr) || state.mrr < 0) throw new RangeError(`MRR ${state.mrr} is not minor units`);
  if (!state.contributing && state.mrr !== 0)
    throw new RangeError('a subscription that does not contribute has an MRR');
}

/** The movements of a period, summed over subscriptions (minor units each). */
export type MovementTotals = Record<MovementKind, number>;

export const noMovements = (): MovementTotals => ({
  new: 0,
  expansion: 0,
  contraction: 0,
  churned: 0,
  reactivation: 0,
});

/** Adds one subscription's movement to a period's totals (a new object; the totals are not changed). */
export function addMovement(totals: MovementTotals, movement: Movement): MovementTotals {
  if (movement === null) return totals;
  return { ...totals, [movement.kind]: totals[movement.kind] + movement.amount };
}

/** start + new + expansion + reactivation - contraction - churned: the MRR at a period's end. */
export const mrrAfter = (startMrr: number, totals: MovementTotals): number =>
  startMrr + totals.new + totals.expansion + totals.reactivation - totals.contraction - totals.churned;

/** Why a month range is refused (the routes answer 400, docs/api-behaviour.md §25). */
export const MONTH_RANGE_REFUSALS = ['INVALID_MONTH', 'FROM_AFTER_TO', 'RANGE_TOO_LONG'] as const;
export type MonthRangeRefusal = (typeof MONTH_RANGE_REFUSALS)[number];

export class MonthRangeError extends Error {
  constructor(
    readonly reason: MonthRangeRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'MonthRangeError';
  }
}

/** The longest range a query lists (docs/api-behaviour.md §25). */
export const MAX_RANGE_MONTHS = 36;

/** A calendar month, UTC: the year and its month 1..12. */
export interface Month {
  year: number;
  month: number;
}

const MONTH_TEXT = /^(\d{4})-(\d{2})$/;

/** `YYYY-MM` -> a month; anything else (2026-13, 2026-1, 26-01) -> MonthRangeError INVALID_MONTH. */
export function parseMonth(text: string): Month {
  const match = MONTH_TEXT.exec(text);
  const month = match ? Number(match[2]) : 0;
  if (!match || month < 1 || month > 12) {
    throw new MonthRangeError('INVALID_MONTH', `${JSON.stringify(text)} is not a month written YYYY-MM`);
  }
  return { year: Number(match[1]), month };
}

export const formatMonth = (m: Month): string =>
  `${String(m.year).padStart(4, '0')}-${String(m.month).padStart(2, '0')}`;

const monthIndex = (m: Month): number => m.year * 12 + (m.month - 1);
const monthAt = (index: number): Month => ({ year: Math.floor(index / 12), month: (index % 12) + 1 });

/** The first instant of a month, UTC, in epoch milliseconds. */
export const monthStart = (m: Month): number => Date.UTC(m.year, m.month - 1, 1);

/**
 * Every month from `from` to `to`, both included, oldest first (docs/api-behaviour.md §25):
 * refused when either is not `YYYY-MM`, when `from` is after `to`, or when it is more than 36 months.
 */
export function monthsOfRange(from: string, to: string): Month[] {
  const first = monthIndex(parseMonth(from));
  const last = monthIndex(parseMonth(to));
  if (first > last) throw new MonthRangeError('FROM_AFTER_TO', `from ${from} is after to ${to}`);
  const count = last - first + 1;
  if (count > MAX_RANGE_MONTHS) {
    throw new MonthRangeError('RANGE_TOO_LONG', `${count} months is more than ${MAX_RANGE_MONTHS}`);
  }
  return Array.from({ length: count }, (_, i) => monthAt(first + i));
}

/** A subscription's state from `at` (epoch milliseconds, its own clock) until its next change. */
export interface MrrChange extends MrrState {
  at: number;
}

/** One subscription's history: its changes, oldest first; before the first it does not contribute. */
export type MrrHistory = readonly MrrChange[];

/** One month of the series (docs/api-behaviour.md §25), amounts in minor units. */
export interface MonthlyMrr extends MovementTotals {
  /** `YYYY-MM`. */
  month: string;
  /** The MRR at the month's start: the previous month's `mrr`. */
  startMrr: number;
  /** The MRR at the month's end, or at `asOf` for the month that holds it. */
  mrr: number;
  /** Subscriptions contributing at that same instant. */
  activeSubscriptions: number;
}

/**
 * The month-by-month MRR series of a range (docs/api-behaviour.md §25). A month runs from its
 * first instant (included) to the next month's (excluded), or to `asOf` (included) for the month
 * that holds it: a change at exactly midnight on the 1st belongs to the month it opens. Each
 * month's movements are classified per subscription from its states at the two ends, so
 * mrr = startMrr + new + expansion + reactivation - contraction - churned holds by construction,
 * and a month's startMrr is the previous month's mrr. Months after `asOf` are not refused here
 * (the routes decide): nothing has moved in them yet, they repeat the state at `asOf`.
 */
export function mrrSeries(from: string, to: string, histories: readonly MrrHistory[], asOf: number): MonthlyMrr[] {
  const months = monthsOfRange(from, to);
  for (const history of histories) {
    if (history.some((change, i) => i > 0 && change.at < history[i - 1].at)) {
      throw new RangeError('a subscription history is not oldest first');
    }
  }
  return months.map((month) => {
    const start = monthStart(month);
    const next = monthStart(monthAt(monthIndex(month) + 1));
    // Both ends are exclusive instants: a state is the one after every change strictly before it.
    const end = Math.min(next, asOf + 1);
    const opening = Math.min(start, end);
    let totals = noMovements();
    let startMrr = 0;
    let mrr = 0;
    let activeSubscriptions = 0;
    for (const history of histories) {
      const atStart = stateBefore(history, opening);
      const atEnd = stateBefore(history, end);
      startMrr += atStart.mrr;
      mrr += atEnd.mrr;
      if (atEnd.contributing) activeSubscriptions += 1;
      totals = addMovement(totals, classifyMovement(atStart, atEnd, contributedBefore(history, opening)));
    }
    return { month: formatMonth(month), startMrr, ...totals, mrr, activeSubscriptions };
  });
}

/** The state after every change strictly before `instant` (not contributing before the first). */
export function stateBefore(history: MrrHistory, instant: number): MrrState {
  let state: MrrState = NOT_CONTRIBUTING;
  for (const change of history) {
    if (change.at >= instant) break;
    state = change;
  }
  return { contributing: state.contributing, mrr: state.mrr };
}

/** Whether the subscription contributed at any time strictly before `instant`. */
export function contributedBefore(history: MrrHistory, instant: number): boolean {
  return history.some((change) => change.at < instant && change.contributing);
}
