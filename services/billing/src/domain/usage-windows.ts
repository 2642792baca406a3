import type { BillingPeriod } from './periods';
import type { PricingTerms } from './plan-change';

/** A plan a subscription had, in force from `from` until the next one's `from`. */
export interface PlanInForce {
  plan: PricingTerms;
  from: Date;
}

/** The usage records a plan prices: timestamp in [from, to); `from` null = from the beginning. */
export interface UsageWindow {
  plan: PricingTerms;
  from: Date | null;
  to: Date;
}

/**
 * Metered usage is billed at the unit amount of the plan in force when each record's timestamp
 * falls (docs/api-behaviour.md §18): the unbilled records before `before`, cut into one window
 * per plan, in time order. A subscription that never changed plan has one window, its plan's,
 * from the beginning. A record older than the first plan's start (a backdated timestamp) is the
 * first plan's. Windows of plans that start at or after `before` are left out.
 */
export function usageWindows(current: PricingTerms, history: PlanInForce[], before: Date): UsageWindow[] {
  if (history.length === 0) return [{ plan: current, from: null, to: before }];
  const sorted = [...history].sort((a, b) => a.from.getTime() - b.from.getTime());
  const windows: UsageWindow[] = [];
  sorted.forEach((entry, k) => {
    const from = k === 0 ? null : entry.from;
    if (from && from.getTime() >= before.getTime()) return;
    const next = sorted[k + 1]?.from;
    const to = next && next.getTime() < before.getTime() ? next : before;
    windows.push({ plan: entry.plan, from, to });
  });
  return windows;
}

/** The part of `period` a window's usage line shows (within the period, never inverted). */
export function linePeriodOf(window: UsageWindow, period: BillingPeriod): BillingPeriod {
  const clamp = (t: number) => new Date(Math.min(Math.max(t, period.start.getTime()), period.end.getTime()));
  return {
    start: clamp(window.from?.getTime() ?? period.start.getTime()),
    end: clamp(window.to.getTime()),
  };
}
