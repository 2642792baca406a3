import { z } from 'zod';
import { CURRENCIES, toMajorUnits } from '@billing/platform';
import type { catalogV1 } from '@billing/proto';
import { EXAMPLE, iso, metadata, timestamp } from '../common.schemas';
import { couponCode } from '../coupons/coupons.schemas';
import { TaxAmountSchema, toTaxAmount } from '../invoices/invoices.schemas';
import { taxRateIds } from '../tax-rates/tax-rates.schemas';

const webUrl = z.url({ protocol: /^https?$/, error: 'Input should be a valid http or https URL' });

export const CheckoutSessionSchema = z
  .object({
    id: z.uuid(),
    code: z.string().meta({ description: 'Short, unguessable; the hosted page is checkout_url' }),
    checkout_url: z.string(),
    status: z.enum(['PENDING', 'COMPLETED', 'EXPIRED', 'CANCELLED']),
    plan_id: z.uuid(),
    success_url: z.string().nullable(),
    cancel_url: z.string().nullable(),
    customer_email: z.string().nullable(),
    customer_name: z.string().nullable(),
    customer_id: z.uuid().nullable().meta({ description: 'Set when COMPLETED' }),
    subscription_id: z.uuid().nullable().meta({ description: 'Set when COMPLETED' }),
    metadata: z.record(z.string(), z.unknown()),
    allow_promotion_codes: z.boolean().meta({ description: 'The hosted page shows a "Promotion code" field' }),
    coupon_code: z.string().nullable().meta({
      description: 'The coupon applied (given at creation, or a promotion code applied on the hosted page)',
    }),
    amount_subtotal: z.number().meta({ description: "The plan's price for the first period (major units)" }),
    amount_discount: z.number().meta({ description: "The coupon's discount on it" }),
    tax_rate_ids: z.array(z.uuid()).meta({
      description: "The tax rates the checkout applies, in order: the session's own, or its plan's when it was made",
    }),
    amount_tax: z.number().meta({ description: 'The tax of the first invoice (the sum of total_tax_amounts)' }),
    total_tax_amounts: z.array(TaxAmountSchema).meta({ description: 'One entry per tax rate, in order' }),
    amount_total: z.number().meta({
      description:
        'What the first invoice comes to: amount_subtotal - amount_discount + the exclusive taxes, charged at ' +
        'payment (with a trial, a refunded card check is charged instead and this is the first charge after the ' +
        'trial). Quoted by billing as the invoice will be computed',
    }),
    currency: z.enum(CURRENCIES),
    livemode: z.boolean(),
    expires_at: timestamp,
    completed_at: timestamp.nullable(),
    created_at: timestamp,
  })
  .meta({ id: 'CheckoutSession' });

export const CreateCheckoutSessionBody = z
  .object({
    plan_id: z.uuid(),
    success_url: webUrl.optional(),
    cancel_url: webUrl.optional(),
    customer_email: z.email().optional(),
    customer_name: z.string().trim().min(1).max(200).optional(),
    metadata: metadata.optional(),
    expires_in_minutes: z.int().min(5).max(1440).default(1440),
    coupon_code: couponCode.optional().meta({
      description:
        'A coupon redeemed for the session now (refused: 400 saying why); the page shows the original price, ' +
        'the discount and the price to pay. Given back if the session expires or is cancelled unpaid',
    }),
    allow_promotion_codes: z.boolean().default(false).meta({
      description: 'Show a "Promotion code" field on the hosted page instead of a fixed coupon_code',
    }),
    tax_rate_ids: taxRateIds.optional().meta({
      description:
        "Tax rates of the checkout and of the subscription it creates, replacing the plan's: at most 5, active, of " +
        "this project and mode; [] = no tax; absent = the plan's (as the plan has them now)",
    }),
  })
  .refine((body) => !(body.coupon_code !== undefined && body.allow_promotion_codes), {
    message: 'Send either coupon_code or allow_promotion_codes, not both',
    path: ['allow_promotion_codes'],
  })
  .meta({ id: 'CreateCheckoutSessionRequest' });

export const CheckoutCodeParams = z.object({
  code: z
    .string()
    .regex(/^[0-9A-Za-z]{8,16}$/, { error: 'Checkout session not found' })
    .meta({ description: 'The session code' }),
});

export const toCheckoutSession = (s: catalogV1.CheckoutSession): z.input<typeof CheckoutSessionSchema> => ({
  id: s.id,
  code: s.code,
  checkout_url: s.checkoutUrl,
  status: s.status as z.input<typeof CheckoutSessionSchema>['status'],
  plan_id: s.planId,
  success_url: s.successUrl ?? null,
  cancel_url: s.cancelUrl ?? null,
  customer_email: s.customerEmail ?? null,
  customer_name: s.customerName ?? null,
  customer_id: s.customerId ?? null,
  subscription_id: s.subscriptionId ?? null,
  metadata: s.metadata ?? {},
  allow_promotion_codes: s.allowPromotionCodes,
  coupon_code: s.couponCode ?? null,
  amount_subtotal: toMajorUnits(s.amountSubtotal),
  amount_discount: toMajorUnits(s.amountDiscount),
  tax_rate_ids: s.taxRateIds,
  amount_tax: toMajorUnits(s.amountTax),
  total_tax_amounts: s.totalTaxAmounts.map(toTaxAmount),
  amount_total: toMajorUnits(s.amountTotal),
  currency: s.currency as (typeof CURRENCIES)[number],
  livemode: s.livemode,
  expires_at: iso(s.expiresAt, 'expires_at'),
  completed_at: s.completedAt ? s.completedAt.toISOString() : null,
  created_at: iso(s.createdAt),
});

export const checkoutSessionExample = {
  id: EXAMPLE.checkoutSessionId,
  code: EXAMPLE.checkoutCode,
  checkout_url: `https://billing.example.com/checkout/${EXAMPLE.checkoutCode}`,
  status: 'PENDING',
  plan_id: EXAMPLE.planId,
  success_url: 'https://acme.example/welcome',
  cancel_url: 'https://acme.example/pricing',
  customer_email: EXAMPLE.customerEmail,
  customer_name: 'Ada Obi',
  customer_id: null,
  subscription_id: null,
  metadata: { signup_source: 'pricing-page' },
  allow_promotion_codes: false,
  coupon_code: 'WELCOME25',
  amount_subtotal: 15000,
  amount_discount: 3750,
  tax_rate_ids: [EXAMPLE.taxRateId],
  amount_tax: 843.75,
  total_tax_amounts: [
    {
      tax_rate_id: EXAMPLE.taxRateId,
      display_name: 'VAT',
      percentage: 7.5,
      inclusive: false,
      taxable_amount: 11250,
      amount: 843.75,
    },
  ],
  amount_total: 12093.75,
  currency: 'NGN',
  livemode: false,
  expires_at: '2026-03-03T09:15:00.000Z',
  completed_at: null,
  created_at: EXAMPLE.createdAt,
} satisfies z.input<typeof CheckoutSessionSchema>;

/** The session once its customer paid: what checkout.session.completed carries. */
export const completedCheckoutSessionExample = {
  ...checkoutSessionExample,
  status: 'COMPLETED',
  customer_id: EXAMPLE.customerId,
  subscription_id: EXAMPLE.subscriptionId,
  completed_at: '2026-03-02T09:21:37.000Z',
} satisfies z.input<typeof CheckoutSessionSchema>;
