import { noMovements, MOVEMENT_KINDS, type AnalyticsFact, type MovementTotals } from '@billing/analytics';
import type { DailyRow, MrrMonthRow, RevenueMonthRow } from './analytics-figures';
import { applySubscriptionFact, dayOf, monthOf, type SubscriptionRecord } from './subscription-movement';

/** The project and mode a fact belongs to (its envelope's). */
export interface FactScope {
  projectId: string;
  livemode: boolean;
}

/** One fact to apply: its event, its scope, its time (the envelope's created_at) and the fact. */
export interface ScopedFact extends FactScope {
  eventId: string;
  /** Epoch milliseconds on the project's clock. */
  at: number;
  fact: AnalyticsFact;
}

export interface CurrencyScope extends FactScope {
  currency: string;
}

export const subscriptionKey = (scope: FactScope, subscriptionId: string): string =>
  `${scope.projectId}|${scope.livemode}|${subscriptionId}`;

export const currencyKey = (scope: CurrencyScope): string => `${scope.projectId}|${scope.livemode}|${scope.currency}`;

export interface TotalsDelta {
  mrr: number;
  active: number;
  trialing: number;
  pastDue: number;
  /** Customers with a contributing subscription: set by the writer, which knows each customer's count. */
  customers: number;
}

/**
 * What a batch of facts changes in the read model, summed per row so that each row is written
 * once per batch: the subscriptions' new records, and signed deltas of the ledgers and totals.
 */
export interface ReadModelChanges {
  subscriptions: Map<string, FactScope & { subscriptionId: string; record: SubscriptionRecord }>;
  mrrMonths: Map<string, CurrencyScope & MrrMonthRow>;
  revenueMonths: Map<string, CurrencyScope & RevenueMonthRow>;
  days: Map<string, CurrencyScope & DailyRow>;
  totals: Map<string, CurrencyScope & TotalsDelta>;
  /** Change of each customer's count of contributing subscriptions. */
  customers: Map<string, CurrencyScope & { customerId: string; delta: number }>;
}

export const emptyChanges = (): ReadModelChanges => ({
  subscriptions: new Map(),
  mrrMonths: new Map(),
  revenueMonths: new Map(),
  days: new Map(),
  totals: new Map(),
  customers: new Map(),
});

function entry<T>(map: Map<string, T>, key: string, fresh: () => T): T {
  let value = map.get(key);
  if (!value) map.set(key, (value = fresh()));
  return value;
}

const dayRow = (changes: ReadModelChanges, scope: CurrencyScope, day: string) =>
  entry(changes.days, `${currencyKey(scope)}|${day}`, () => ({
    ...scope,
    day,
    lastChurns: 0,
    firstContributions: 0,
    contributingDelta: 0,
    gross: 0,
    refunds: 0,
  }));

const revenueRow = (changes: ReadModelChanges, scope: CurrencyScope, month: string) =>
  entry(changes.revenueMonths, `${currencyKey(scope)}|${month}`, () => ({
    ...scope,
    month,
    gross: 0,
    refunds: 0,
    tax: 0,
  }));

/**
 * Folds facts, in the order given, into the changes they make (docs/api-behaviour.md §25).
 * `known` holds the stored records of the subscriptions the facts name (absent: never seen); a
 * subscription's later fact in the batch builds on its earlier one. Pure: the caller writes the
 * result in the same transaction as the events' processed ids.
 */
export function foldFacts(
  facts: readonly ScopedFact[],
  known: ReadonlyMap<string, SubscriptionRecord>,
): ReadModelChanges {
  const changes = emptyChanges();
  for (const { projectId, livemode, at, fact } of facts) {
    const scope: FactScope = { projectId, livemode };
    if (fact.kind === 'invoice_payment') {
      const currencyScope = { ...scope, currency: fact.currency };
      const month = revenueRow(changes, currencyScope, monthOf(at));
      month.gross += fact.charged;
      month.tax += fact.tax;
      dayRow(changes, currencyScope, dayOf(at)).gross += fact.charged;
      continue;
    }
    if (fact.kind === 'refund') {
      const currencyScope = { ...scope, currency: fact.currency };
      revenueRow(changes, currencyScope, monthOf(at)).refunds += fact.amount;
      dayRow(changes, currencyScope, dayOf(at)).refunds += fact.amount;
      continue;
    }
    const key = subscriptionKey(scope, fact.subscription_id);
    const previous = changes.subscriptions.get(key)?.record ?? known.get(key) ?? null;
    const change = applySubscriptionFact(previous, fact, at);
    const { record } = change;
    changes.subscriptions.set(key, { ...scope, subscriptionId: fact.subscription_id, record });
    const currencyScope = { ...scope, currency: record.currency };
    const month = entry(changes.mrrMonths, `${currencyKey(currencyScope)}|${change.month}`, () => ({
      ...currencyScope,
      month: change.month,
      ...noMovements(),
      activeDelta: 0,
    }));
    for (const kind of MOVEMENT_KINDS) month[kind] += change.movements[kind];
    month.activeDelta += change.contributingDelta;
    for (const { day, delta } of change.lastChurnDays) dayRow(changes, currencyScope, day).lastChurns += delta;
    const day = dayRow(changes, currencyScope, change.day);
    day.firstContributions += change.firstContribution;
    day.contributingDelta += change.contributingDelta;
    const totals = entry(changes.totals, currencyKey(currencyScope), () => ({
      ...currencyScope,
      mrr: 0,
      active: 0,
      trialing: 0,
      pastDue: 0,
      customers: 0,
    }));
    totals.mrr += change.mrrDelta;
    totals.active += change.contributingDelta;
    totals.trialing += change.trialingDelta;
    totals.pastDue += change.pastDueDelta;
    if (change.contributingDelta !== 0) {
      entry(changes.customers, `${currencyKey(currencyScope)}|${record.customerId}`, () => ({
        ...currencyScope,
        customerId: record.customerId,
        delta: 0,
      })).delta += change.contributingDelta;
    }
  }
  return changes;
}

/** Whether a month row changes nothing (every sum and delta 0): it need not be written. */
export const isEmptyMovement = (row: MovementTotals & { activeDelta: number }): boolean =>
  row.activeDelta === 0 && MOVEMENT_KINDS.every((kind) => row[kind] === 0);
