import {
  formatMonth,
  mrrAfter,
  subscriberChurnRate30d,
  summariseMrr,
  MOVEMENT_KINDS,
  type Month,
  type MovementTotals,
} from '@billing/analytics';
import { dayOf, monthOf } from './subscription-movement';

/** One month's row of the MRR ledger: its movement sums and the change of contributing subscriptions. */
export interface MrrMonthRow extends MovementTotals {
  /** `YYYY-MM`. */
  month: string;
  activeDelta: number;
}

/** One month of GetMrrSeries (docs/api-behaviour.md §25). */
export interface MrrMonthFigures extends MovementTotals {
  month: string;
  mrr: number;
  activeSubscriptions: number;
}

/**
 * The MRR series of `months` from a project's ledger rows (every row up to the range's end, in
 * any order): a month's MRR is the sum of every month's net movement up to it, since each
 * month's movements take its start's MRR to its end's. Months after `asOf`'s month have moved
 * nothing yet: they repeat the state at `asOf` (docs/api-behaviour.md §25).
 */
export function mrrMonthsOfRange(months: Month[], rows: readonly MrrMonthRow[], asOf: number): MrrMonthFigures[] {
  const current = monthOf(asOf);
  const sorted = [...rows].sort((a, b) => (a.month < b.month ? -1 : a.month > b.month ? 1 : 0));
  let mrr = 0;
  let active = 0;
  let next = 0;
  return months.map((m) => {
    const month = formatMonth(m);
    const through = month < current ? month : current;
    let own: MrrMonthRow | null = null;
    for (; next < sorted.length && sorted[next].month <= through; next += 1) {
      const row = sorted[next];
      mrr = mrrAfter(mrr, row);
      active += row.activeDelta;
      if (row.month === month) own = row;
    }
    const movements: MovementTotals = Object.fromEntries(
      MOVEMENT_KINDS.map((kind) => [kind, own && month <= current ? own[kind] : 0]),
    ) as MovementTotals;
    return { month, ...movements, mrr, activeSubscriptions: active };
  });
}

/** One month's revenue row (docs/api-behaviour.md §25), minor units. */
export interface RevenueMonthRow {
  month: string;
  gross: number;
  refunds: number;
  tax: number;
}

export interface RevenueMonthFigures extends RevenueMonthRow {
  net: number;
}

/** Every month of the range, oldest first; a month without a payment or a refund is all zeros. */
export function revenueMonthsOfRange(months: Month[], rows: readonly RevenueMonthRow[]): RevenueMonthFigures[] {
  const byMonth = new Map(rows.map((row) => [row.month, row]));
  return months.map((m) => {
    const month = formatMonth(m);
    const row = byMonth.get(month) ?? { month, gross: 0, refunds: 0, tax: 0 };
    return { month, gross: row.gross, refunds: row.refunds, net: row.gross - row.refunds, tax: row.tax };
  });
}

const DAY_MS = 86_400_000;
/** The window's length in UTC days, as_of's day included (docs/api-behaviour.md §25). */
export const WINDOW_DAYS = 30;

/**
 * The 30-day window of the summary: the 30 UTC days ending with as_of's day, from the start of
 * the first one (as_of's day start - 29 days) to as_of.
 */
export function thirtyDayWindow(asOf: number): { firstDay: string; lastDay: string } {
  const dayStart = Math.floor(asOf / DAY_MS) * DAY_MS;
  return { firstDay: dayOf(dayStart - (WINDOW_DAYS - 1) * DAY_MS), lastDay: dayOf(asOf) };
}

/** One day's row of the summary ledger. */
export interface DailyRow {
  /** `YYYY-MM-DD`. */
  day: string;
  lastChurns: number;
  firstContributions: number;
  contributingDelta: number;
  gross: number;
  refunds: number;
}

/** The current figures of a project, mode and currency. */
export interface CurrencyTotals {
  mrr: number;
  active: number;
  trialing: number;
  pastDue: number;
  customers: number;
}

export interface SummaryFigures {
  mrr: number;
  arr: number;
  activeSubscriptions: number;
  trialingSubscriptions: number;
  pastDueSubscriptions: number;
  customers: number;
  arpu: number;
  /** Exact decimal text, at most 4 decimals, 0..1. */
  subscriberChurnRate30d: string;
  netRevenue30d: number;
}

/**
 * The summary (docs/api-behaviour.md §25) from the current totals and the daily rows from the
 * window's first day on: "contributing 30 days ago" is the count now less every change since
 * the window opened; churned, new and net revenue are the window's days up to as_of's.
 */
export function summaryOf(totals: CurrencyTotals, days: readonly DailyRow[], asOf: number): SummaryFigures {
  const { firstDay, lastDay } = thirtyDayWindow(asOf);
  let changedSince = 0;
  let churned = 0;
  let fresh = 0;
  let net = 0;
  for (const day of days) {
    if (day.day < firstDay) continue;
    changedSince += day.contributingDelta;
    if (day.day > lastDay) continue;
    churned += day.lastChurns;
    fresh += day.firstContributions;
    net += day.gross - day.refunds;
  }
  const { mrr, arr, customers, arpu } = summariseMrr(totals.mrr, totals.customers);
  const rate = subscriberChurnRate30d({ churned, contributingAtStart: totals.active - changedSince, new: fresh });
  return {
    mrr,
    arr,
    activeSubscriptions: totals.active,
    trialingSubscriptions: totals.trialing,
    pastDueSubscriptions: totals.pastDue,
    customers,
    arpu,
    subscriberChurnRate30d: String(rate),
    netRevenue30d: net,
  };
}
