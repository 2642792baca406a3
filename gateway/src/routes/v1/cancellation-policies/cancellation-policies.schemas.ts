import Decimal from 'decimal.js';
import { z } from 'zod';
import { toMajorUnits } from '@billing/platform';
import type { policyV1 } from '@billing/proto';
import { EXAMPLE, idParam, iso, money, pageQuery, timestamp } from '../common.schemas';

const REFUND_TYPES = ['NONE', 'FULL', 'PARTIAL'] as const;
type RefundType = (typeof REFUND_TYPES)[number];

/** Range, decimals and "required for PARTIAL" are policy's rules: it sees the whole policy after a PATCH too. */
const refundPercentage = z.number().nullable().meta({
  description:
    '0..100, at most 2 decimals. Required when refund_type is PARTIAL, ignored otherwise; null is the same as leaving it out.',
});

const refundWindowDays = z
  .int()
  .min(0)
  .max(36_500)
  .meta({ description: 'Days from the period start during which a cancel refunds; 0 = no time limit' });

const cancellationFee = money.meta({
  description: "Major units of the subscription's currency, subtracted from the refund (never below 0)",
});

export const CancellationPolicySchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    refund_type: z.enum(REFUND_TYPES),
    refund_percentage: z.number().meta({
      description:
        'The share of the paid amount refunded before proration and fee: as set for PARTIAL, 100 for FULL, 0 for NONE',
    }),
    refund_window_days: z.int(),
    prorate_refund: z.boolean(),
    cancellation_fee: z.number().meta({ description: 'Major currency unit' }),
    apply_to_existing: z.boolean().meta({
      description: 'As the default policy, also applies to subscriptions created before the policy',
    }),
    is_default: z.boolean().meta({ description: 'At most one default per project and mode' }),
    livemode: z.boolean(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'CancellationPolicy' });

export const CreateCancellationPolicyBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    refund_type: z.enum(REFUND_TYPES),
    refund_percentage: refundPercentage.optional(),
    refund_window_days: refundWindowDays.default(0),
    prorate_refund: z.boolean().default(false).meta({ description: 'Refund only the unused share of the period' }),
    cancellation_fee: cancellationFee.default(0),
    apply_to_existing: z.boolean().default(false),
    is_default: z
      .boolean()
      .default(false)
      .meta({ description: "Makes it the project+mode's default; the previous default stops being one" }),
  })
  .meta({ id: 'CreateCancellationPolicyRequest' });

/** Any field may change; the policy is then validated as a whole. */
export const UpdateCancellationPolicyBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    refund_type: z.enum(REFUND_TYPES).optional(),
    refund_percentage: refundPercentage.optional(),
    refund_window_days: refundWindowDays.optional(),
    prorate_refund: z.boolean().optional(),
    cancellation_fee: cancellationFee.optional(),
    apply_to_existing: z.boolean().optional(),
    is_default: z.boolean().optional(),
  })
  .meta({ id: 'UpdateCancellationPolicyRequest' });

export const ListCancellationPoliciesQuery = z.object({ ...pageQuery });

export const PolicyIdParams = z.object({ policy_id: idParam('Cancellation policy') });

/** JSON number -> exact decimal text for policy (no exponent: 1e-7 would not parse there). */
export const percentageText = (value: number | null | undefined): string | undefined =>
  value === null || value === undefined ? undefined : new Decimal(String(value)).toFixed();

const EFFECTIVE_PERCENTAGE: Record<RefundType, number | undefined> = { NONE: 0, FULL: 100, PARTIAL: undefined };

export const toCancellationPolicy = (policy: policyV1.CancellationPolicy): z.input<typeof CancellationPolicySchema> => {
  const refundType = policy.refundType as RefundType;
  return {
    id: policy.id,
    name: policy.name,
    refund_type: refundType,
    refund_percentage: EFFECTIVE_PERCENTAGE[refundType] ?? Number(policy.refundPercentage ?? 0),
    refund_window_days: policy.refundWindowDays,
    prorate_refund: policy.prorateRefund,
    cancellation_fee: toMajorUnits(policy.cancellationFee),
    apply_to_existing: policy.applyToExisting,
    is_default: policy.isDefault,
    livemode: policy.livemode,
    created_at: iso(policy.createdAt),
    updated_at: iso(policy.updatedAt, 'updated_at'),
  };
};

export const cancellationPolicyExample = {
  id: EXAMPLE.policyId,
  name: 'Half back in the first week',
  refund_type: 'PARTIAL',
  refund_percentage: 50,
  refund_window_days: 7,
  prorate_refund: false,
  cancellation_fee: 500,
  apply_to_existing: true,
  is_default: true,
  livemode: false,
  created_at: EXAMPLE.createdAt,
  updated_at: EXAMPLE.createdAt,
} satisfies z.input<typeof CancellationPolicySchema>;
