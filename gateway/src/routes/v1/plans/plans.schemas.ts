import { z } from 'zod';
import { CURRENCIES, toMajorUnits } from '@billing/platform';
import type { catalogV1 } from '@billing/proto';
import { taxRateIds } from '../tax-rates/tax-rates.schemas';
import { EXAMPLE, idParam, iso, metadata, money, pageQuery, queryBoolean, timestamp } from '../common.schemas';

const INTERVAL_INPUTS = ['daily', 'weekly', 'monthly', 'quarterly', 'biannually', 'annually', 'yearly'];

export const PlanSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string().nullable(),
    amount: z.number(),
    currency: z.enum(CURRENCIES),
    interval: z.string().meta({ description: 'daily, weekly, monthly, quarterly, biannually or annually' }),
    interval_count: z.int(),
    trial_period_days: z.int(),
    usage_unit_amount: z
      .number()
      .nullable()
      .meta({ description: 'Price per unit of metered usage; null = not metered' }),
    is_active: z.boolean(),
    metadata: z.record(z.string(), z.unknown()),
    tax_rate_ids: z.array(z.uuid()).meta({
      description:
        'The default tax rates of its subscriptions, in order: a subscription without rates of its own keeps the ' +
        'ones its plan had when it was made',
    }),
    livemode: z.boolean(),
    created_at: timestamp,
  })
  .meta({ id: 'Plan' });

export const CreatePlanBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    amount: money,
    currency: z
      .string()
      .transform((c) => c.toUpperCase())
      .pipe(z.enum(CURRENCIES))
      .default('NGN'),
    interval: z
      .string()
      .refine((i) => INTERVAL_INPUTS.includes(i.trim().toLowerCase()), {
        message: 'Input should be daily, weekly, monthly, quarterly, biannually or annually (or yearly)',
      })
      .default('monthly')
      .meta({ description: 'Case-insensitive; `yearly` means `annually`' }),
    interval_count: z.int().min(1).max(52).default(1),
    trial_period_days: z.int().min(0).max(730).default(0),
    usage_unit_amount: money.nullable().optional(),
    description: z.string().max(2000).optional(),
    metadata: metadata.optional(),
    tax_rate_ids: taxRateIds.optional().meta({
      description:
        'Default tax rates of its subscriptions and checkouts: at most 5, active, of this project and mode (unknown ' +
        "or of the other mode: 404, another project's: 403, inactive: 400)",
    }),
  })
  .meta({ id: 'CreatePlanRequest' });

/** Price and billing fields are not accepted here (400): create a new plan to re-price. */
export const UpdatePlanBody = z
  .looseObject({
    name: z.string().trim().min(1).max(200).optional(),
    description: z.string().max(2000).optional(),
    is_active: z.boolean().optional(),
    metadata: metadata.optional(),
    tax_rate_ids: taxRateIds.optional().meta({
      description:
        'Replaces the default tax rates ([] = none) for the subscriptions and checkout sessions made from now on; a rate the plan has may stay though inactive',
    }),
  })
  .meta({ id: 'UpdatePlanRequest' });

export const UPDATABLE_PLAN_FIELDS = ['name', 'description', 'is_active', 'metadata', 'tax_rate_ids'];

export const ListPlansQuery = z.object({ is_active: queryBoolean.optional(), ...pageQuery });

export const PlanIdParams = z.object({ plan_id: idParam('Plan') });

export const toPlan = (plan: catalogV1.Plan): z.input<typeof PlanSchema> => ({
  id: plan.id,
  name: plan.name,
  description: plan.description || null,
  amount: toMajorUnits(plan.amount),
  currency: plan.currency as (typeof CURRENCIES)[number],
  interval: plan.interval,
  interval_count: plan.intervalCount,
  trial_period_days: plan.trialPeriodDays,
  usage_unit_amount: plan.usageUnitAmount === undefined ? null : toMajorUnits(plan.usageUnitAmount),
  is_active: plan.isActive,
  metadata: plan.metadata ?? {},
  tax_rate_ids: plan.taxRateIds,
  livemode: plan.livemode,
  created_at: iso(plan.createdAt),
});

export const planExample = {
  id: EXAMPLE.planId,
  name: 'Pro',
  description: 'Unlimited classes and one guest pass a month',
  amount: 15000,
  currency: 'NGN',
  interval: 'monthly',
  interval_count: 1,
  trial_period_days: 14,
  usage_unit_amount: null,
  is_active: true,
  metadata: { tier: 'pro' },
  tax_rate_ids: [EXAMPLE.taxRateId],
  livemode: false,
  created_at: EXAMPLE.createdAt,
} satisfies z.input<typeof PlanSchema>;
