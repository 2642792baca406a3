import { z } from 'zod';
import { CURRENCIES, toMajorUnits } from '@billing/platform';
import type { catalogV1 } from '@billing/proto';
import { EXAMPLE, idParam, iso, money, pageQuery, timestamp } from '../common.schemas';

export const COUPON_DURATIONS = ['ONCE', 'REPEATING', 'FOREVER'] as const;

/** A coupon code as merchants and customers type it; stored and compared upper case. */
export const couponCode = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_-]{3,40}$/, { error: 'Input should be 3 to 40 characters of A-Z, 0-9, _ and -' })
  .meta({ description: '3..40 characters of A-Z, 0-9, _ and -; case-insensitive (stored upper case)' });

/** percent_off: 0 < x <= 100 with at most 2 decimals, read through its decimal text (never as a float). */
const percentOff = z
  .number()
  .gt(0)
  .max(100)
  .refine((x) => /^\d+(\.\d{1,2})?$/.test(String(x)), { message: 'Input should have at most 2 decimal places' })
  .meta({ description: 'Percentage off, 0 < x <= 100, at most 2 decimals (12.5 = 12.5%)' });

export const CouponSchema = z
  .object({
    id: z.uuid(),
    code: z.string().meta({ description: 'Upper case' }),
    name: z.string().nullable(),
    percent_off: z.number().nullable().meta({ description: 'Set for a percentage coupon, else null' }),
    amount_off: z.number().nullable().meta({ description: 'Major currency unit; set for an amount coupon, else null' }),
    currency: z.enum(CURRENCIES).nullable().meta({ description: 'The currency of amount_off; null with percent_off' }),
    duration: z.enum(COUPON_DURATIONS),
    duration_in_periods: z.int().nullable().meta({ description: 'REPEATING: how many period invoices' }),
    max_redemptions: z.int().nullable().meta({ description: 'Null = unlimited' }),
    times_redeemed: z.int(),
    redeem_by: timestamp.nullable().meta({ description: 'The last moment it may be redeemed; null = no end' }),
    plan_ids: z.array(z.uuid()).nullable().meta({ description: 'The plans it applies to; null = every plan' }),
    is_active: z.boolean(),
    livemode: z.boolean(),
    created_at: timestamp,
  })
  .meta({ id: 'Coupon' });

/** Types and ranges; the rules between fields (exactly one of percent_off and amount_off, ...) are catalog's (422). */
export const CreateCouponBody = z
  .object({
    code: couponCode,
    name: z.string().trim().min(1).max(200).optional(),
    percent_off: percentOff.optional(),
    amount_off: money.optional().meta({ description: 'Amount off in major units (with `currency`)' }),
    currency: z
      .string()
      .transform((c) => c.toUpperCase())
      .pipe(z.enum(CURRENCIES))
      .optional()
      .meta({ description: 'Required with amount_off, refused with percent_off' }),
    duration: z
      .string()
      .transform((d) => d.toUpperCase())
      .pipe(z.enum(COUPON_DURATIONS))
      .meta({ description: 'ONCE: the first invoice; REPEATING: the next duration_in_periods; FOREVER: all' }),
    duration_in_periods: z
      .int()
      .min(1)
      .max(120)
      .optional()
      .meta({ description: 'Required with REPEATING, refused otherwise' }),
    max_redemptions: z.int().min(1).optional(),
    redeem_by: timestamp.optional().meta({ description: 'In the future; after it the code is refused (expired)' }),
    plan_ids: z.array(z.uuid()).min(1).max(100).optional().meta({ description: 'Default: every plan' }),
  })
  .meta({ id: 'CreateCouponRequest' });

export const ListCouponsQuery = z.object(pageQuery);

export const CouponIdParams = z.object({ coupon_id: idParam('Coupon') });

export const toCoupon = (c: catalogV1.Coupon): z.input<typeof CouponSchema> => ({
  id: c.id,
  code: c.code,
  name: c.name ?? null,
  percent_off: c.percentOff === undefined ? null : Number(c.percentOff),
  amount_off: c.amountOff === undefined ? null : toMajorUnits(c.amountOff),
  currency: (c.currency ?? null) as z.input<typeof CouponSchema>['currency'],
  duration: c.duration as z.input<typeof CouponSchema>['duration'],
  duration_in_periods: c.durationInPeriods ?? null,
  max_redemptions: c.maxRedemptions ?? null,
  times_redeemed: c.timesRedeemed,
  redeem_by: c.redeemBy ? c.redeemBy.toISOString() : null,
  plan_ids: c.planIds.length ? c.planIds : null,
  is_active: c.isActive,
  livemode: c.livemode,
  created_at: iso(c.createdAt),
});

export const couponExample = {
  id: EXAMPLE.couponId,
  code: 'WELCOME25',
  name: 'Welcome: 25% off for 3 months',
  percent_off: 25,
  amount_off: null,
  currency: null,
  duration: 'REPEATING',
  duration_in_periods: 3,
  max_redemptions: 500,
  times_redeemed: 0,
  redeem_by: '2026-12-31T23:59:59.000Z',
  plan_ids: [EXAMPLE.planId],
  is_active: true,
  livemode: false,
  created_at: EXAMPLE.createdAt,
} satisfies z.input<typeof CouponSchema>;
