import { z } from 'zod';
import type { portalV1 } from '@billing/proto';
import { EXAMPLE, idParam, iso, timestamp } from '../common.schemas';

const CANCELLATION = ['NONE', 'AT_PERIOD_END', 'IMMEDIATELY'] as const;
const PRORATION = ['IMMEDIATE', 'NONE'] as const;

const returnUrl = z
  .url({ protocol: /^https?$/ })
  .max(2000)
  .meta({ description: 'An absolute http(s) URL' });

const PlanChangeSchema = z
  .object({
    enabled: z.boolean(),
    plan_ids: z.array(z.uuid()).meta({ description: 'The plans a customer may move between, in this order' }),
    proration: z.enum(PRORATION),
  })
  .meta({ id: 'PortalPlanChange' });

export const PortalConfigurationSchema = z
  .object({
    cancellation: z.enum(CANCELLATION),
    plan_change: PlanChangeSchema,
    payment_method_update: z.boolean(),
    billing_details_update: z.boolean(),
    headline: z.string().nullable(),
    return_url_default: z.string().nullable(),
    livemode: z.boolean(),
    updated_at: timestamp.nullable().meta({ description: 'null while the defaults apply' }),
  })
  .meta({ id: 'PortalConfiguration' });

export const PutPortalConfigurationBody = z
  .object({
    cancellation: z.enum(CANCELLATION).meta({
      description:
        'What "Cancel subscription" does: nothing offered, at the end of the period, or now with the policy refund',
    }),
    plan_change: z
      .object({
        enabled: z.boolean(),
        plan_ids: z
          .array(z.guid())
          .max(10)
          .default([])
          .meta({ description: 'Active plans of this project and mode, in one currency; at least two when enabled' }),
        proration: z.enum(PRORATION).default('IMMEDIATE'),
      })
      .meta({ id: 'PortalPlanChangeRequest' }),
    payment_method_update: z.boolean(),
    billing_details_update: z.boolean(),
    headline: z.string().trim().min(1).max(100).optional(),
    return_url_default: returnUrl.optional(),
  })
  .meta({ id: 'PutPortalConfigurationRequest' });

export const CreatePortalSessionBody = z
  .object({
    customer_id: idParam('Customer'),
    return_url: returnUrl
      .optional()
      .meta({ description: 'Where "Return" goes; else the configuration\'s return_url_default' }),
  })
  .meta({ id: 'CreatePortalSessionRequest' });

export const PortalSessionSchema = z
  .object({
    id: z.uuid(),
    customer_id: z.uuid(),
    url: z.url().meta({ description: 'Opens the portal once, within 10 minutes; send the customer there' }),
    expires_at: timestamp,
    return_url: z.string().nullable(),
    livemode: z.boolean(),
    created_at: timestamp,
  })
  .meta({ id: 'PortalSession' });

export const toPortalConfiguration = (c: portalV1.PortalConfiguration): z.input<typeof PortalConfigurationSchema> => ({
  cancellation: c.cancellation as (typeof CANCELLATION)[number],
  plan_change: {
    enabled: c.planChangeEnabled,
    plan_ids: c.planChangePlanIds,
    proration: c.planChangeProration as (typeof PRORATION)[number],
  },
  payment_method_update: c.paymentMethodUpdate,
  billing_details_update: c.billingDetailsUpdate,
  headline: c.headline ?? null,
  return_url_default: c.returnUrlDefault ?? null,
  livemode: c.livemode,
  updated_at: c.updatedAt ? c.updatedAt.toISOString() : null,
});

export const toPortalSession = (s: portalV1.CreatePortalSessionResponse): z.input<typeof PortalSessionSchema> => ({
  id: s.id,
  customer_id: s.customerId,
  url: s.url,
  expires_at: iso(s.expiresAt, 'expires_at'),
  return_url: s.returnUrl ?? null,
  livemode: s.livemode,
  created_at: iso(s.createdAt),
});

export const portalConfigurationExample = {
  cancellation: 'AT_PERIOD_END' as const,
  plan_change: {
    enabled: true,
    plan_ids: [EXAMPLE.planId, EXAMPLE.upgradePlanId] as string[],
    proration: 'IMMEDIATE' as const,
  },
  payment_method_update: true,
  billing_details_update: true,
  headline: 'Manage your Acme subscription',
  return_url_default: 'https://acme.example.com/account',
};

export const portalSessionExample = {
  id: '6d1f3a52-8b0e-4c7a-9f2d-3e5b7c9a1d40',
  customer_id: EXAMPLE.customerId,
  url: `${EXAMPLE.publicUrl}/portal/s/${EXAMPLE.linkMac}`,
  expires_at: '2026-03-02T09:25:00.000Z',
  return_url: 'https://acme.example.com/account',
  livemode: false,
  created_at: EXAMPLE.createdAt,
} as const;
