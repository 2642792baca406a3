import { formatMonth, monthsOfRange, parseMonth, type Month } from '@billing/analytics';
import { CURRENCIES, systemClock } from '@billing/platform';
import { z } from 'zod';
import type { BillingClient } from '../../../clients/billing.client';
import { CSV_MEDIA_TYPE } from '../../../http/csv-text';
import { defineRoute, type Resource } from '../../../http/route';
import { required, scopeOf } from '../common.schemas';
import {
  AnalyticsRangeQuery,
  AnalyticsSummaryQuery,
  AnalyticsSummarySchema,
  MrrMonthSchema,
  mrrMonthsExample,
  RevenueMonthSchema,
  revenueMonthsExample,
  summaryExample,
  toAnalyticsSummary,
  toMrrMonth,
  toRevenueMonth,
} from './analytics.schemas';

type ApiKey = Parameters<typeof scopeOf>[0];

/** A range's months when the query names none (docs/api-behaviour.md §25): 12 in all, up to the current one. */
const DEFAULT_RANGE_MONTHS = 12;

const CURRENCY_RULE = `A currency other than ${CURRENCIES.join(', ')} is a 422.`;

const RANGE_REFUSED = 'from 2026-07 is after to 2026-03';

const RANGE_RULES =
  '`from` and `to` are months written `YYYY-MM`, both included, oldest first; without `to`, the current month ' +
  "of the project's clock (the test clock for a test key, docs/api-behaviour.md §13); without `from`, 11 months " +
  'before `to`, so 12 months in all. A month not written `YYYY-MM`, `from` after `to`, or more than 36 months ' +
  `is a 400. Months are calendar months in UTC; the current month runs to now. ${CURRENCY_RULE}`;

const CSV_NOTE =
  'Send `Accept: text/csv` for the same months as CSV: a header row with the same field names, one line per ' +
  'month, money in major units as in JSON. JSON is the answer to any other `Accept`, and to none.';

/** The instant "now" is for the key's mode: the project's test clock for a test key, real time for a live one. */
async function projectNow(billing: BillingClient, apiKey: ApiKey): Promise<Date> {
  if (apiKey.livemode) return systemClock.now();
  const { now } = await billing.getTestClock({ scope: scopeOf(apiKey) });
  return required(now, 'now');
}

const monthOf = (instant: Date): Month => ({ year: instant.getUTCFullYear(), month: instant.getUTCMonth() + 1 });

const monthsBefore = (month: Month, count: number): Month => {
  const index = month.year * 12 + (month.month - 1) - count;
  return { year: Math.floor(index / 12), month: (index % 12) + 1 };
};

/**
 * The range a query asks for, its gaps filled (docs/api-behaviour.md §25), and checked by the one
 * rule of @billing/analytics: a refusal is a MonthRangeError, which middleware/errors.ts answers 400.
 */
async function rangeOf(
  query: { from?: string; to?: string },
  now: () => Promise<Date>,
): Promise<{ from: string; to: string }> {
  const to = query.to ?? formatMonth(monthOf(await now()));
  const from = query.from ?? formatMonth(monthsBefore(parseMonth(to), DEFAULT_RANGE_MONTHS - 1));
  monthsOfRange(from, to);
  return { from, to };
}

export const analyticsResource: Resource = {
  tag: {
    name: 'Analytics',
    description:
      "Revenue analytics of the key's project and mode, per currency (docs/api-behaviour.md §25): monthly " +
      'recurring revenue (MRR) and its movements month by month, money collected month by month, and a summary. ' +
      'A subscription contributes to MRR while ACTIVE or PAST_DUE: the recurring price of its plan excluding ' +
      'tax, less a FOREVER coupon, normalised to a month; metered usage is not part of it. Figures are kept up ' +
      "to date from the platform's events, so they follow a subscription's changes within moments; a " +
      "customer's tax exemption changed counts from each subscription's next change or renewal. Test-mode " +
      "figures run on the project's test clock.",
  },
  prefixes: ['/analytics'],
  routes: ({ analytics, billing }) => [
    defineRoute({
      method: 'get',
      path: '/mrr',
      operationId: 'getAnalyticsMrr',
      summary: 'MRR and its movements, month by month',
      description:
        "Each month's MRR at its end (for the current month: now) and what moved it, per subscription from its " +
        "state at the month's start and end: `new` (first contribution), `expansion` / `contraction` (its MRR " +
        'rose / fell, e.g. a plan change), `churned` (stopped contributing: cancelled, expired, paused), ' +
        '`reactivation` (contributes again after stopping). For every month, mrr = the previous month\u2019s mrr ' +
        '+ new + expansion + reactivation - contraction - churned. ' +
        `${RANGE_RULES} ${CSV_NOTE}`,
      auth: 'apiKey',
      query: AnalyticsRangeQuery,
      errors: { 400: RANGE_REFUSED },
      response: {
        status: 200,
        description: 'One item per month of the range, oldest first',
        schema: z.array(MrrMonthSchema),
        alsoAs: CSV_MEDIA_TYPE,
      },
      responseExample: mrrMonthsExample,
      async handle({ auth: { apiKey }, query }) {
        const range = await rangeOf(query, () => projectNow(billing, apiKey));
        const { months } = await analytics.getMrrSeries({ scope: scopeOf(apiKey), currency: query.currency, ...range });
        return months.map(toMrrMonth);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/revenue',
      operationId: 'getAnalyticsRevenue',
      summary: 'Money collected, month by month',
      description:
        "Each month's successful charges (`gross`), the money returned to cards (`refunds`), `net` = gross - " +
        'refunds, and the tax of the invoices paid in the month. An invoice paid from credit alone collected ' +
        `nothing, so it adds no gross. ${RANGE_RULES} ${CSV_NOTE}`,
      auth: 'apiKey',
      query: AnalyticsRangeQuery,
      errors: { 400: RANGE_REFUSED },
      response: {
        status: 200,
        description: 'One item per month of the range, oldest first',
        schema: z.array(RevenueMonthSchema),
        alsoAs: CSV_MEDIA_TYPE,
      },
      responseExample: revenueMonthsExample,
      async handle({ auth: { apiKey }, query }) {
        const range = await rangeOf(query, () => projectNow(billing, apiKey));
        const { months } = await analytics.getRevenueSeries({
          scope: scopeOf(apiKey),
          currency: query.currency,
          ...range,
        });
        return months.map(toRevenueMonth);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/summary',
      operationId: 'getAnalyticsSummary',
      summary: 'MRR, ARR, subscription counts, ARPU, churn and revenue now',
      description:
        '`mrr` now and `arr` = 12 x mrr; subscriptions contributing (`active_subscriptions`: ACTIVE or ' +
        'PAST_DUE), `trialing_subscriptions` and `past_due_subscriptions`; `customers` with a contributing ' +
        'subscription and `arpu` = mrr / customers (0 when none); `subscriber_churn_rate_30d`, subscriptions ' +
        'that stopped contributing in the last 30 days over those contributing 30 days ago plus those new since ' +
        '(0..1, 4 decimals); `net_revenue_30d`, charges less refunds of the last 30 days; `as_of`, the instant ' +
        `of the project's clock the figures are as of. ${CURRENCY_RULE}`,
      auth: 'apiKey',
      query: AnalyticsSummaryQuery,
      response: { status: 200, description: 'The figures now', schema: AnalyticsSummarySchema },
      responseExample: summaryExample,
      async handle({ auth: { apiKey }, query }) {
        const summary = await analytics.getSummary({ scope: scopeOf(apiKey), currency: query.currency });
        return toAnalyticsSummary(summary);
      },
    }),
  ],
};
