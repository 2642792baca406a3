import { z } from 'zod';
import type { billingV1 } from '@billing/proto';
import { countryCode, EXAMPLE, idParam, iso, pageQuery, timestamp } from '../common.schemas';

/** A subscription carries at most this many rates (docs/api-behaviour.md §21). */
export const MAX_TAX_RATES = 5;

/** 0 <= p < 100 with at most 4 decimals, read through its decimal text (never as a float's noise). */
const percentage = z
  .number()
  .min(0)
  .lt(100)
  .refine((p) => /^\d+(\.\d{1,4})?$/.test(String(p)), { message: 'Input should have at most 4 decimal places' })
  .meta({ description: 'Percent, 0 <= p < 100, at most 4 decimals (7.5 = 7.5%)' });

const displayName = z.string().trim().min(1).max(50);
const description = z.string().trim().max(200);

export const TaxRateSchema = z
  .object({
    id: z.uuid(),
    display_name: z.string().meta({ description: 'What invoices call the tax, e.g. VAT' }),
    percentage: z.number().meta({ description: 'Percent (7.5 = 7.5%); never changes' }),
    inclusive: z.boolean().meta({
      description: 'True: prices already hold the tax; false: it is added on top. Never changes',
    }),
    country: z.string().nullable().meta({ description: 'ISO 3166-1 alpha-2, upper case' }),
    jurisdiction: z.string().nullable(),
    description: z.string().nullable(),
    is_active: z.boolean().meta({
      description: 'An inactive rate can not be newly attached; where it is attached it keeps applying',
    }),
    livemode: z.boolean(),
    created_at: timestamp,
  })
  .meta({ id: 'TaxRate' });

export const CreateTaxRateBody = z
  .object({
    display_name: displayName.meta({ description: '1..50 characters' }),
    percentage,
    inclusive: z.boolean().meta({ description: 'Required: whether prices already hold the tax' }),
    country: countryCode.optional(),
    jurisdiction: z.string().trim().max(50).optional().meta({ description: 'At most 50 characters, e.g. Lagos' }),
    description: description.optional().meta({ description: 'At most 200 characters' }),
  })
  .meta({ id: 'CreateTaxRateRequest' });

/** What never changes once a rate exists (docs/api-behaviour.md §21): sending it is a 422. */
const IMMUTABLE_FIELDS = ['percentage', 'inclusive'] as const;

export const UpdateTaxRateBody = z
  .looseObject({
    display_name: displayName.optional().meta({ description: '1..50 characters' }),
    description: description.optional().meta({ description: 'At most 200 characters; "" clears it' }),
    is_active: z.boolean().optional().meta({
      description: 'false: no longer attachable (it keeps applying where it is attached); true: attachable again',
    }),
  })
  .superRefine((body, ctx) => {
    for (const field of IMMUTABLE_FIELDS) {
      if (field in body) {
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `${field} never changes once a tax rate is created; create a new tax rate instead`,
          params: { type: 'extra_forbidden' },
        });
      }
    }
  })
  .meta({ id: 'UpdateTaxRateRequest' });

export const ListTaxRatesQuery = z.object(pageQuery);

export const TaxRateIdParams = z.object({ tax_rate_id: idParam('Tax rate') });

/** The ids of tax rates a subscription gets (POST /subscriptions, PATCH /subscriptions/{id}). */
export const taxRateIds = z.array(z.guid()).max(MAX_TAX_RATES);

export const toTaxRate = (r: billingV1.TaxRate): z.input<typeof TaxRateSchema> => ({
  id: r.id,
  display_name: r.displayName,
  percentage: Number(r.percentage),
  inclusive: r.inclusive,
  country: r.country ?? null,
  jurisdiction: r.jurisdiction ?? null,
  description: r.description ?? null,
  is_active: r.isActive,
  livemode: r.livemode,
  created_at: iso(r.createdAt),
});

export const taxRateExample = {
  id: EXAMPLE.taxRateId,
  display_name: 'VAT',
  percentage: 7.5,
  inclusive: false,
  country: 'NG',
  jurisdiction: null,
  description: 'Value added tax, Nigeria',
  is_active: true,
  livemode: false,
  created_at: EXAMPLE.createdAt,
} satisfies z.input<typeof TaxRateSchema>;
