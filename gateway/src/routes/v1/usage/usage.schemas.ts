import { z } from 'zod';
import { CURRENCIES, parseUsageQuantity, toMajorUnits } from '@billing/platform';
import type { billingV1 } from '@billing/proto';
import { EXAMPLE, idParam, iso, pageQuery, queryBoolean, timestamp } from '../common.schemas';

/**
 * The body reader hands a JSON number of `quantity` over as the text it was written as
 * (EXACT_DECIMAL_FIELDS), so the number branch only serves the document and in-process callers.
 */
const quantityText = z.union([z.string(), z.number()]).transform((q) => (typeof q === 'number' ? String(q) : q.trim()));

/** A decimal string or number, validated (a bad one is a 422 at body.quantity). */
export const quantity = quantityText
  .superRefine((text, ctx) => {
    const parsed = parseUsageQuantity(text);
    if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.reason, params: { type: 'decimal_parsing' } });
  })
  .meta({
    description:
      'Decimal string or number: up to 18 integer and 6 fraction digits, no exponent; negative for a correction',
  });

const QUANTITY_PATTERN = '^-?\\d+(\\.\\d+)?$';

export const UsageRecordSchema = z
  .object({
    id: z.uuid(),
    subscription_id: z.uuid(),
    quantity: z
      .string()
      .regex(new RegExp(QUANTITY_PATTERN))
      .meta({ description: 'Canonical decimal text: no exponent, no trailing zeros ("1.5", "3", "-0.25")' }),
    description: z.string().nullable(),
    idempotency_key: z.string().nullable(),
    billed: z.boolean(),
    billed_at: timestamp.nullable(),
    invoice_id: z.uuid().nullable().meta({ description: 'The invoice the usage was billed on' }),
    timestamp,
    livemode: z.boolean(),
    created_at: timestamp,
  })
  .meta({ id: 'UsageRecord' });

export const RecordUsageBody = z
  .object({
    quantity,
    description: z.string().max(1000).optional(),
    idempotency_key: z
      .string()
      .min(1)
      .max(255)
      .optional()
      .meta({ description: 'The same key on the same subscription returns the first record (200)' }),
    timestamp: timestamp.optional().meta({ description: "When the usage happened; default now (the project's clock)" }),
  })
  .meta({ id: 'RecordUsageRequest' });

export const UsageBatchItemSchema = z
  .object({
    // Checked per record by the service: a bad one is an item of `errors`, not a 422 of the batch.
    subscription_id: z.string(),
    quantity: quantityText.meta({ description: 'As for a single record; a bad one is reported in `errors`' }),
    idempotency_key: z.string().optional(),
    timestamp: timestamp.optional(),
    description: z.string().optional(),
  })
  .meta({ id: 'UsageBatchItem' });

export const UsageBatchBody = z
  .object({ records: z.array(UsageBatchItemSchema).max(1000) })
  .meta({ id: 'UsageBatchRequest' });

export const UsageBatchResultSchema = z
  .object({
    accepted: z.int().meta({ description: 'Records stored' }),
    duplicates: z.int().meta({ description: 'Records whose idempotency key was already used on their subscription' }),
    errors: z.array(z.object({ index: z.int(), detail: z.string() })),
  })
  .meta({ id: 'UsageBatchResult' });

export const UsageSummarySchema = z
  .object({
    period_start: timestamp,
    period_end: timestamp,
    unbilled_quantity: z.string().meta({ description: 'Exact decimal text' }),
    unit_amount: z.number().nullable().meta({ description: 'Price per unit (major units); null = not metered' }),
    estimated_amount: z.number().meta({ description: 'unbilled_quantity x unit_amount, rounded once (major units)' }),
    currency: z.enum(CURRENCIES),
  })
  .meta({ id: 'UsageSummary' });

export const UsageHistoryQuery = z.object({
  billed: queryBoolean.optional(),
  ...pageQuery,
});

export const SubscriptionIdParams = z.object({ subscription_id: idParam('Subscription') });

export const toUsageRecord = (r: billingV1.UsageRecord): z.input<typeof UsageRecordSchema> => ({
  id: r.id,
  subscription_id: r.subscriptionId,
  quantity: r.quantity,
  description: r.description ?? null,
  idempotency_key: r.idempotencyKey ?? null,
  billed: r.billed,
  billed_at: r.billedAt ? r.billedAt.toISOString() : null,
  invoice_id: r.invoiceId ?? null,
  timestamp: iso(r.timestamp, 'timestamp'),
  livemode: r.livemode,
  created_at: iso(r.createdAt),
});

export const toUsageSummary = (s: billingV1.GetUsageSummaryResponse): z.input<typeof UsageSummarySchema> => ({
  period_start: iso(s.periodStart, 'period_start'),
  period_end: iso(s.periodEnd, 'period_end'),
  unbilled_quantity: s.unbilledQuantity,
  unit_amount: s.unitAmount === undefined ? null : toMajorUnits(s.unitAmount),
  estimated_amount: toMajorUnits(s.estimatedAmount),
  currency: s.currency as (typeof CURRENCIES)[number],
});

export const usageRecordExample = {
  id: EXAMPLE.usageRecordId,
  subscription_id: EXAMPLE.subscriptionId,
  quantity: '2.5',
  description: 'Sauna hours',
  idempotency_key: 'visit-2026-03-04-0192',
  billed: false,
  billed_at: null,
  invoice_id: null,
  timestamp: '2026-03-04T18:30:00.000Z',
  livemode: false,
  created_at: '2026-03-04T18:30:02.000Z',
} satisfies z.input<typeof UsageRecordSchema>;
