import { z } from 'zod';
import { CURRENCIES, DEFAULT_CURRENCY, toMajorUnits } from '@billing/platform';
import type { analyticsV1 } from '@billing/proto';

/** Major currency units, as every money field of the API (docs/api-behaviour.md §1). */
const majorUnits = (description: string) => z.number().meta({ description: `${description}; major currency unit` });
const count = (description: string) => z.number().int().min(0).meta({ description });
const monthText = z.string().meta({ description: 'The calendar month, UTC, as YYYY-MM', example: '2026-03' });

const currency = z
  .string()
  .transform((c) => c.toUpperCase())
  .pipe(z.enum(CURRENCIES))
  .default(DEFAULT_CURRENCY)
  .meta({
    description: `The figures of subscriptions and payments in this currency (case-insensitive); default ${DEFAULT_CURRENCY}`,
  });

/**
 * A month of a range. Its rules (YYYY-MM, from not after to, at most 36 months) are checked by
 * monthsOfRange of @billing/analytics in the handler, which answers 400 (docs/api-behaviour.md
 * §25), so the schema only says what the parameter is.
 */
const rangeMonth = (fallback: string, example: string) =>
  z
    .string()
    .optional()
    .meta({ description: `YYYY-MM, included. Default: ${fallback}`, example });

export const AnalyticsRangeQuery = z.object({
  currency,
  from: rangeMonth('11 months before `to` (12 months in all)', '2026-01'),
  to: rangeMonth("the current month of the project's clock (the test clock for a test key)", '2026-03'),
});

export const AnalyticsSummaryQuery = z.object({ currency });

/** One month of MRR and its movements (docs/api-behaviour.md §25). */
export const MrrMonthSchema = z
  .object({
    month: monthText,
    mrr: majorUnits("The MRR at the month's end (for the current month: now)"),
    new: majorUnits('MRR of subscriptions that contributed for the first time'),
    expansion: majorUnits('MRR gained by subscriptions that contributed at both ends and rose'),
    contraction: majorUnits('MRR lost by subscriptions that contributed at both ends and fell'),
    churned: majorUnits('MRR of subscriptions that stopped contributing (cancelled, expired, paused)'),
    reactivation: majorUnits('MRR of subscriptions that contribute again after having stopped'),
    active_subscriptions: count("Subscriptions contributing (ACTIVE or PAST_DUE) at the month's end (or now)"),
  })
  .meta({ id: 'MrrMonth' });

/** One month of money collected (docs/api-behaviour.md §25). */
export const RevenueMonthSchema = z
  .object({
    month: monthText,
    gross: majorUnits("The month's successful charges"),
    refunds: majorUnits('Money returned to cards in the month'),
    net: majorUnits('gross - refunds'),
    tax: majorUnits('The tax of the invoices paid in the month'),
  })
  .meta({ id: 'RevenueMonth' });

export const AnalyticsSummarySchema = z
  .object({
    mrr: majorUnits('Monthly recurring revenue now'),
    arr: majorUnits('12 x mrr'),
    active_subscriptions: count('Subscriptions contributing to MRR now (ACTIVE or PAST_DUE)'),
    trialing_subscriptions: count('Subscriptions TRIALING now'),
    past_due_subscriptions: count('Subscriptions PAST_DUE now'),
    customers: count('Customers with a contributing subscription'),
    arpu: majorUnits('mrr / customers, rounded half away from zero to the minor unit; 0 when there are none'),
    subscriber_churn_rate_30d: z
      .number()
      .min(0)
      .max(1)
      .meta({
        description:
          'Subscriptions that stopped contributing in the last 30 days / (those contributing 30 days ago + those ' +
          'new in the 30 days): 0..1, 4 decimals rounded half away from zero, 0 when nothing contributed',
      }),
    net_revenue_30d: majorUnits('Charges less refunds of the last 30 days'),
    as_of: z.iso
      .datetime()
      .meta({ description: "The instant the figures are as of: the project's clock in this mode" }),
  })
  .meta({ id: 'AnalyticsSummary' });

export const toMrrMonth = (m: analyticsV1.MrrMonth): z.input<typeof MrrMonthSchema> => ({
  month: m.month,
  mrr: toMajorUnits(m.mrr),
  new: toMajorUnits(m.new),
  expansion: toMajorUnits(m.expansion),
  contraction: toMajorUnits(m.contraction),
  churned: toMajorUnits(m.churned),
  reactivation: toMajorUnits(m.reactivation),
  active_subscriptions: m.activeSubscriptions,
});

export const toRevenueMonth = (m: analyticsV1.RevenueMonth): z.input<typeof RevenueMonthSchema> => ({
  month: m.month,
  gross: toMajorUnits(m.gross),
  refunds: toMajorUnits(m.refunds),
  net: toMajorUnits(m.net),
  tax: toMajorUnits(m.tax),
});

export const toAnalyticsSummary = (s: analyticsV1.GetSummaryResponse): z.input<typeof AnalyticsSummarySchema> => ({
  mrr: toMajorUnits(s.mrr),
  arr: toMajorUnits(s.arr),
  active_subscriptions: s.activeSubscriptions,
  trialing_subscriptions: s.trialingSubscriptions,
  past_due_subscriptions: s.pastDueSubscriptions,
  customers: s.customers,
  arpu: toMajorUnits(s.arpu),
  // Exact decimal text of at most 4 decimals ("0.0833"): a JSON number keeps it exactly.
  subscriber_churn_rate_30d: Number(s.subscriberChurnRate30d),
  net_revenue_30d: toMajorUnits(s.netRevenue30d),
  as_of: new Date(s.asOf).toISOString(),
});

/** The examples tell one story: a merchant whose MRR grows over a quarter. */
export const mrrMonthsExample: z.input<typeof MrrMonthSchema>[] = [
  {
    month: '2026-01',
    mrr: 150000,
    new: 150000,
    expansion: 0,
    contraction: 0,
    churned: 0,
    reactivation: 0,
    active_subscriptions: 10,
  },
  {
    month: '2026-02',
    mrr: 172500,
    new: 30000,
    expansion: 7500,
    contraction: 0,
    churned: 15000,
    reactivation: 0,
    active_subscriptions: 11,
  },
  {
    month: '2026-03',
    mrr: 187500,
    new: 15000,
    expansion: 0,
    contraction: 2500,
    churned: 12500,
    reactivation: 15000,
    active_subscriptions: 12,
  },
];

export const revenueMonthsExample: z.input<typeof RevenueMonthSchema>[] = [
  { month: '2026-01', gross: 161250, refunds: 0, net: 161250, tax: 11250 },
  { month: '2026-02', gross: 185437.5, refunds: 5000, net: 180437.5, tax: 12937.5 },
  { month: '2026-03', gross: 201562.5, refunds: 0, net: 201562.5, tax: 14062.5 },
];

export const summaryExample: z.input<typeof AnalyticsSummarySchema> = {
  mrr: 187500,
  arr: 2250000,
  active_subscriptions: 12,
  trialing_subscriptions: 3,
  past_due_subscriptions: 1,
  customers: 11,
  arpu: 17045.45,
  subscriber_churn_rate_30d: 0.0769,
  net_revenue_30d: 201562.5,
  as_of: '2026-03-20T10:00:00.000Z',
};
