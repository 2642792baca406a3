import { z } from 'zod';
import { CURRENCIES, toMajorUnits } from '@billing/platform';
import type { billingV1 } from '@billing/proto';
import { EXAMPLE, idParam, iso, metadata, pageQuery, timestamp } from '../common.schemas';
import {
  invoiceExample,
  InvoiceLineSchema,
  InvoiceSchema,
  invoiceTaxFields,
  toInvoiceLine,
  toTaxAmount,
} from '../invoices/invoices.schemas';
import { couponCode } from '../coupons/coupons.schemas';
import { taxRateIds } from '../tax-rates/tax-rates.schemas';

export const SUBSCRIPTION_STATUSES = ['ACTIVE', 'PAST_DUE', 'CANCELLED', 'PAUSED', 'TRIALING', 'EXPIRED'] as const;
const status = z.enum(SUBSCRIPTION_STATUSES);

/** What a list of subscriptions shows of each, exactly. */
const listViewFields = {
  id: z.uuid(),
  customer_email: z.string(),
  plan_name: z.string(),
  status,
  amount: z.number().meta({ description: 'Major currency unit' }),
  currency: z.enum(CURRENCIES),
  interval: z.string(),
  current_period_start: timestamp.meta({ description: 'During a trial, the trial window' }),
  current_period_end: timestamp,
  cancelled_at: timestamp.nullable(),
  cancel_at_period_end: z.boolean(),
  cancelled_by: z.enum(['MERCHANT', 'CUSTOMER', 'SYSTEM']).nullable(),
  created_at: timestamp,
};

export const SubscriptionListItemSchema = z.object(listViewFields).meta({ id: 'SubscriptionListItem' });

/** The discount the coming invoices get (docs/api-behaviour.md §19). */
export const DiscountSchema = z
  .object({
    coupon_id: z.uuid(),
    code: z.string(),
    percent_off: z.number().nullable(),
    amount_off: z.number().nullable().meta({ description: 'Major currency unit' }),
    ends_after_periods_remaining: z
      .int()
      .nullable()
      .meta({
        description:
          'How many more period invoices it discounts (1 for ONCE until used); null = FOREVER. The subscription ' +
          'shows no discount once it has run out',
      }),
  })
  .meta({ id: 'SubscriptionDiscount' });

/** The list view + the detail fields. */
export const SubscriptionSchema = z
  .object({
    ...listViewFields,
    customer_id: z.uuid(),
    plan_id: z.uuid(),
    trial_end: timestamp.nullable(),
    billing_cycles: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'Paid periods of a fixed term; null = until cancelled' }),
    metadata: z.record(z.string(), z.unknown()),
    livemode: z.boolean(),
    pending_plan_id: z.uuid().nullable().meta({
      description: 'The plan a change asked for at the period end bills from pending_plan_change_at; null when none',
    }),
    pending_plan_change_at: timestamp.nullable().meta({
      description: 'When the pending plan takes over: the end of the current period; null when none',
    }),
    discount: DiscountSchema.nullable().meta({ description: 'Null when the subscription has no discount' }),
    tax_rate_ids: z
      .array(z.uuid())
      .nullable()
      .meta({
        description:
          "The tax rates its invoices get, in order, replacing its plan's; [] = no tax; null = its plan's, as the " +
          'plan had them when the subscription was made (or moved to it)',
      }),
  })
  .meta({ id: 'Subscription' });

/** What a cancel now refunds; null when no cancellation policy applies. */
export const RefundSchema = z
  .object({
    id: z.uuid().nullable().meta({ description: 'Null in a preview, and when the amount is 0 (nothing was sent)' }),
    amount: z.number().meta({ description: 'Major currency unit' }),
    currency: z.enum(CURRENCIES),
    status: z.enum(['PENDING', 'PROCESSED', 'FAILED']).meta({
      description: 'PENDING in a preview, or while the provider has not taken it yet (it is retried)',
    }),
    policy_id: z.uuid().nullable().meta({ description: 'The cancellation policy that applied' }),
    invoice_id: z.uuid().nullable().meta({ description: 'The invoice of the period refunded (its amount_refunded)' }),
    livemode: z.boolean(),
  })
  .meta({ id: 'Refund' });

export const CancelledSubscriptionSchema = SubscriptionSchema.extend({ refund: RefundSchema.nullable() }).meta({
  id: 'CancelledSubscription',
});

export const CreateSubscriptionBody = z
  .object({
    customer_id: z.guid(),
    plan_id: z.guid(),
    trial_period_days: z
      .number()
      .int()
      .min(0)
      .max(730)
      .optional()
      .meta({ description: "Overrides the plan's trial; 0 = no trial" }),
    billing_cycles: z.number().int().min(1).optional().meta({ description: 'Fixed term: number of paid periods' }),
    metadata: metadata.optional(),
    coupon_code: couponCode.optional().meta({
      description: 'A coupon to redeem: its discount starts with the first invoice (refused: 400 saying why)',
    }),
    tax_rate_ids: taxRateIds
      .nullable()
      .optional()
      .meta({
        description:
          "Tax rates for its invoices, replacing its plan's: at most 5, active, of this project and mode; [] = no " +
          "tax; absent or null = its plan's (as the plan has them now)",
      }),
  })
  .meta({ id: 'CreateSubscriptionRequest' });

export const UpdateSubscriptionBody = z
  .object({
    tax_rate_ids: taxRateIds
      .nullable()
      .optional()
      .meta({
        description:
          'The tax rates of the invoices made from now on, replacing the current ones: at most 5, of this project and ' +
          "mode, active unless already attached; [] = no tax; null = its plan's again (those it kept from its plan); " +
          'absent = unchanged',
      }),
  })
  .meta({ id: 'UpdateSubscriptionRequest' });

export const ApplyDiscountBody = z.object({ coupon_code: couponCode }).meta({ id: 'ApplySubscriptionDiscountRequest' });

const cancelFields = {
  at_period_end: z.boolean().default(false),
  policy_id: z.guid().optional().meta({
    description: 'The cancellation policy to apply, whatever its apply_to_existing (else the default policy)',
  }),
};

export const CancelSubscriptionBody = z
  .object({ ...cancelFields, reason: z.string().max(500).optional() })
  .meta({ id: 'CancelSubscriptionRequest' });

export const PreviewCancellationBody = z.object(cancelFields).meta({ id: 'CancellationPreviewRequest' });

export const CancellationPreviewSchema = z
  .object({ refund: RefundSchema.nullable() })
  .meta({ id: 'CancellationPreview' });

export const ChangePlanBody = z
  .object({
    plan_id: z.guid().meta({ description: 'The new plan: active, of this project and mode, in the same currency' }),
    proration: z
      .enum(['IMMEDIATE', 'NONE'])
      .default('IMMEDIATE')
      .meta({
        description:
          'IMMEDIATE: credit the unused time of the current plan and charge the remaining time of the new one now. ' +
          'NONE: the new price applies from the next renewal',
      }),
    at_period_end: z.boolean().default(false).meta({
      description: 'Change when the current period ends instead of now: nothing is billed now',
    }),
  })
  .meta({ id: 'ChangePlanRequest' });

export const PlanChangedSubscriptionSchema = SubscriptionSchema.extend({
  latest_invoice: InvoiceSchema.nullable().meta({
    description: 'The invoice the change made (proration, or a new period for another interval); null when none',
  }),
}).meta({ id: 'PlanChangedSubscription' });

export const PlanChangePreviewSchema = z
  .object({
    lines: z.array(InvoiceLineSchema).meta({ description: 'The invoice lines the change would make; [] when none' }),
    subtotal: z.number().meta({ description: 'Sum of the lines before the discount (negative for a downgrade)' }),
    discount: z.number().meta({ description: "The subscription's discount on the invoice" }),
    ...invoiceTaxFields,
    amount: z.number().meta({ description: 'The invoice total: subtotal - discount + the exclusive taxes' }),
    credit_applied: z.number().meta({ description: "The customer's balance the invoice would use" }),
    amount_due: z.number().meta({ description: 'What the saved card would be charged now' }),
    credit_to_balance: z.number().meta({ description: "What a negative total would add to the customer's balance" }),
    currency: z.enum(CURRENCIES),
    period_start: timestamp.meta({ description: "The invoice's period; the current period when none is made" }),
    period_end: timestamp,
  })
  .meta({ id: 'PlanChangePreview' });

export const ListSubscriptionsQuery = z.object({
  status: status.optional(),
  status_filter: status.optional().meta({ description: 'Another name for `status`, as earlier clients send it' }),
  customer_id: z.string().optional(),
  plan_id: z.string().optional(),
  ...pageQuery,
});

export const SubscriptionIdParams = z.object({ subscription_id: idParam('Subscription') });

type Currency = (typeof CURRENCIES)[number];

export const toSubscriptionListItem = (s: billingV1.Subscription): z.input<typeof SubscriptionListItemSchema> => ({
  id: s.id,
  customer_email: s.customerEmail,
  plan_name: s.planName,
  status: s.status as z.input<typeof status>,
  amount: toMajorUnits(s.amount),
  currency: s.currency as Currency,
  interval: s.interval,
  current_period_start: iso(s.currentPeriodStart, 'current_period_start'),
  current_period_end: iso(s.currentPeriodEnd, 'current_period_end'),
  cancelled_at: s.cancelledAt ? s.cancelledAt.toISOString() : null,
  cancel_at_period_end: s.cancelAtPeriodEnd,
  cancelled_by: (s.cancelledBy ?? null) as z.input<typeof SubscriptionSchema>['cancelled_by'],
  created_at: iso(s.createdAt),
});

export const toSubscription = (s: billingV1.Subscription): z.input<typeof SubscriptionSchema> => ({
  ...toSubscriptionListItem(s),
  customer_id: s.customerId,
  plan_id: s.planId,
  trial_end: s.trialEnd ? s.trialEnd.toISOString() : null,
  billing_cycles: s.billingCycles ?? null,
  metadata: s.metadata ?? {},
  livemode: s.livemode,
  pending_plan_id: s.pendingPlanId ?? null,
  pending_plan_change_at: s.pendingPlanChangeAt ? s.pendingPlanChangeAt.toISOString() : null,
  discount: s.discount
    ? {
        coupon_id: s.discount.couponId,
        code: s.discount.code,
        percent_off: s.discount.percentOff === undefined ? null : Number(s.discount.percentOff),
        amount_off: s.discount.amountOff === undefined ? null : toMajorUnits(s.discount.amountOff),
        ends_after_periods_remaining: s.discount.periodsRemaining ?? null,
      }
    : null,
  tax_rate_ids: !s.taxRates || s.taxRates.fromPlan ? null : s.taxRates.ids,
});

export const toPlanChangePreview = (
  p: billingV1.PreviewPlanChangeResponse,
): z.input<typeof PlanChangePreviewSchema> => ({
  lines: p.lines.map(toInvoiceLine),
  subtotal: toMajorUnits(p.subtotal),
  discount: toMajorUnits(p.discount),
  tax: toMajorUnits(p.tax),
  total_excluding_tax: toMajorUnits(p.totalExcludingTax),
  total_tax_amounts: p.totalTaxAmounts.map(toTaxAmount),
  tax_note: p.taxNote ?? null,
  amount: toMajorUnits(p.amount),
  credit_applied: toMajorUnits(p.creditApplied),
  amount_due: toMajorUnits(p.amountDue),
  credit_to_balance: toMajorUnits(p.creditToBalance),
  currency: p.currency as Currency,
  period_start: iso(p.periodStart, 'period_start'),
  period_end: iso(p.periodEnd, 'period_end'),
});

export const toRefund = (r: billingV1.Refund | undefined): z.input<typeof RefundSchema> | null =>
  r
    ? {
        id: r.id || null,
        amount: toMajorUnits(r.amount),
        currency: r.currency as Currency,
        status: r.status as z.input<typeof RefundSchema>['status'],
        policy_id: r.policyId || null,
        invoice_id: r.invoiceId || null,
        livemode: r.livemode,
      }
    : null;

export const subscriptionListItemExample = {
  id: EXAMPLE.subscriptionId,
  customer_email: EXAMPLE.customerEmail,
  plan_name: 'Pro',
  status: 'ACTIVE',
  amount: 15000,
  currency: 'NGN',
  interval: 'monthly',
  current_period_start: EXAMPLE.createdAt,
  current_period_end: EXAMPLE.periodEnd,
  cancelled_at: null,
  cancel_at_period_end: false,
  cancelled_by: null,
  created_at: EXAMPLE.createdAt,
} satisfies z.input<typeof SubscriptionListItemSchema>;

export const subscriptionExample = {
  ...subscriptionListItemExample,
  customer_id: EXAMPLE.customerId,
  plan_id: EXAMPLE.planId,
  trial_end: null,
  billing_cycles: null,
  metadata: { signup_source: 'pricing-page' },
  livemode: false,
  pending_plan_id: null,
  pending_plan_change_at: null,
  discount: null,
  tax_rate_ids: null,
} satisfies z.input<typeof SubscriptionSchema>;

/** The example subscription with the example coupon (25% off its next 3 invoices). */
export const discountedSubscriptionExample = {
  ...subscriptionExample,
  discount: {
    coupon_id: EXAMPLE.couponId,
    code: 'WELCOME25',
    percent_off: 25,
    amount_off: null,
    ends_after_periods_remaining: 3,
  },
} satisfies z.input<typeof SubscriptionSchema>;

/** Half of the first period back under the example cancellation policy, less its fee. */
export const refundExample = {
  id: EXAMPLE.refundId,
  amount: 7000,
  currency: 'NGN',
  status: 'PENDING',
  policy_id: EXAMPLE.policyId,
  invoice_id: EXAMPLE.invoiceId,
  livemode: false,
} satisfies z.input<typeof RefundSchema>;

export const cancelledSubscriptionExample = {
  ...subscriptionExample,
  status: 'CANCELLED',
  cancelled_at: '2026-03-05T12:00:00.000Z',
  cancelled_by: 'MERCHANT',
  refund: refundExample,
} satisfies z.input<typeof CancelledSubscriptionSchema>;

/** Half of the example's first period (Mar 2 -> Apr 2, 31 days): the subscription moves from Pro to Business. */
const HALFWAY = '2026-03-17T21:15:00.000Z';

/** NGN 15,000 -> 30,000 a month at half the period: -7,500 for Pro's unused half, +15,000 for Business's. */
export const planChangePreviewExample = {
  lines: [
    {
      type: 'PRORATION',
      description: 'Unused time on Pro',
      quantity: '1',
      unit_amount: -7500,
      amount: -7500,
      period_start: HALFWAY,
      period_end: EXAMPLE.periodEnd,
      tax_rates: [],
    },
    {
      type: 'PRORATION',
      description: 'Remaining time on Business',
      quantity: '1',
      unit_amount: 15000,
      amount: 15000,
      period_start: HALFWAY,
      period_end: EXAMPLE.periodEnd,
      tax_rates: [],
    },
  ],
  subtotal: 7500,
  discount: 0,
  tax: 0,
  total_excluding_tax: 7500,
  total_tax_amounts: [],
  tax_note: null,
  amount: 7500,
  credit_applied: 0,
  amount_due: 7500,
  credit_to_balance: 0,
  currency: 'NGN',
  period_start: HALFWAY,
  period_end: EXAMPLE.periodEnd,
} satisfies z.input<typeof PlanChangePreviewSchema>;

/** The subscription after that upgrade, with the proration invoice it paid. */
export const planChangedSubscriptionExample = {
  ...subscriptionExample,
  plan_id: EXAMPLE.upgradePlanId,
  plan_name: 'Business',
  amount: 30000,
  latest_invoice: {
    ...invoiceExample,
    number: 'INV-000002',
    subtotal: 7500,
    discount: 0,
    total_excluding_tax: 7500,
    amount: 7500,
    credit_applied: 0,
    amount_due: 7500,
    amount_paid: 7500,
    lines: planChangePreviewExample.lines,
    period_start: HALFWAY,
    due_date: HALFWAY,
    paid_at: HALFWAY,
    created_at: HALFWAY,
  },
} satisfies z.input<typeof PlanChangedSubscriptionSchema>;
