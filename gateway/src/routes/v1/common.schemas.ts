import { z } from 'zod';
import {
  COUNTRY_CODE_MESSAGE,
  hasAtMostMinorDigits,
  isCountryCode,
  POSTAL_ADDRESS_LIMITS as ADDRESS,
} from '@billing/platform';

/** ISO 8601, UTC. */
export const timestamp = z.iso.datetime();

/** A path id; anything that is not an id cannot name a record, so it answers 404 with this detail. */
export const idParam = (what: string) => z.guid({ error: `${what} not found` }).meta({ description: `${what} id` });

/** Text of at most `max` characters once trimmed, not empty: what a request sets. */
export const boundedText = (max: number) => z.string().trim().min(1).max(max);

/** A tax ID (a VAT or tax number) of a seller or a buyer (docs/api-behaviour.md §22). */
export const taxIdText = boundedText(40);

/** Names of projects and keys, as identity accepts them. */
export const displayName = boundedText(200);

/** A postal address as the API shows it (docs/api-behaviour.md §22); an optional part not given is null. */
export const PostalAddressSchema = z
  .object({
    line1: z.string(),
    line2: z.string().nullable(),
    city: z.string(),
    state: z.string().nullable(),
    postal_code: z.string().nullable(),
    country: z.string().meta({ description: 'ISO 3166-1 alpha-2, upper case' }),
  })
  .meta({ id: 'PostalAddress' });

/** An assigned ISO 3166-1 alpha-2 code in upper case: an address's and a tax rate's country. */
export const countryCode = z
  .string()
  .refine(isCountryCode, { message: COUNTRY_CODE_MESSAGE })
  .meta({ description: 'ISO 3166-1 alpha-2 in upper case (`NG`, `GH`, `US`)' });

/** A postal address as a request gives it; the service that keeps it checks the same rules again. */
export const PostalAddressBody = z
  .object({
    line1: boundedText(ADDRESS.line1).meta({ description: `1..${ADDRESS.line1} characters` }),
    line2: boundedText(ADDRESS.line2).nullable().optional(),
    city: boundedText(ADDRESS.city),
    state: boundedText(ADDRESS.state).nullable().optional().meta({ description: 'State, province or region' }),
    postal_code: boundedText(ADDRESS.postal_code).nullable().optional(),
    country: countryCode,
  })
  .meta({ id: 'PostalAddressRequest' });

/** A value to set: null, which clears, travels in a request's `clearedFields` instead. */
export const setTo = <T>(value: T | null | undefined): T | undefined => value ?? undefined;

/** The fields a PATCH body sends as null, which clear: gRPC's `cleared_fields` (proto3 has no null). */
export const nullFields = <F extends string>(body: Partial<Record<F, unknown>>, fields: readonly F[]): F[] =>
  fields.filter((field) => body[field] === null);

/** Services always set these; a reply without one is a service bug, answered as a 500. */
export function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`gRPC reply without ${what}`);
  return value;
}

export const iso = (date: Date | undefined, what = 'created_at'): string => required(date, what).toISOString();

/** Above this, minor units would no longer be exact integers: a 422, not a 500 later. */
const MAX_MONEY = Math.floor(Number.MAX_SAFE_INTEGER / 100);

/** Money in the currency's major unit, at most two decimals. */
export const money = z
  .number()
  .min(0)
  .max(MAX_MONEY)
  .refine(hasAtMostMinorDigits, { message: 'Input should have at most 2 decimal places' })
  .meta({ description: 'Major currency unit (e.g. 5000.5 NGN), at most 2 decimals' });

/** Money above 0 (a credit note's amount, docs/api-behaviour.md §23). */
export const positiveMoney = z
  .number()
  .gt(0)
  .max(MAX_MONEY)
  .refine(hasAtMostMinorDigits, { message: 'Input should have at most 2 decimal places' })
  .meta({ description: 'Major currency unit (e.g. 5000.5 NGN), above 0, at most 2 decimals' });

/**
 * A signed change of money (a balance adjustment): major unit, at most two decimals, never 0
 * (docs/api-behaviour.md §20).
 */
export const nonZeroSignedMoney = z
  .number()
  .min(-MAX_MONEY)
  .max(MAX_MONEY)
  .refine(hasAtMostMinorDigits, { message: 'Input should have at most 2 decimal places' })
  .refine((amount) => amount !== 0, { message: 'Input should not be 0' })
  .meta({ description: 'Major currency unit, at most 2 decimals; positive adds, negative takes away; not 0' });

/** `?limit=&starting_after=` of every list. */
export const pageQuery = {
  limit: z.coerce.number().int().min(1).max(100).optional().meta({ description: '1..100, default 20' }),
  starting_after: z.string().optional().meta({ description: 'The id of the last item of the previous page' }),
};

/** A list's page as the services take it (0 and '' mean their defaults). */
export const pageOf = (query: { limit?: number; starting_after?: string }) => ({
  limit: query.limit ?? 0,
  startingAfter: query.starting_after ?? '',
});

/** Query booleans arrive as text. */
export const queryBoolean = z.enum(['true', 'false']).transform((v) => v === 'true');

/** The project and mode of the calling API key: the tenant filter of every catalog/billing call. */
export const scopeOf = (apiKey: { projectId: string; merchantId: string; livemode: boolean }) => ({
  projectId: apiKey.projectId,
  merchantId: apiKey.merchantId,
  livemode: apiKey.livemode,
});

export const metadata = z
  .record(z.string(), z.unknown())
  .meta({ description: 'Your own key/value pairs, at most 50 keys' });

/**
 * Ids and times the document's examples share, so that together they tell one story: a plan,
 * a customer who paid its checkout, the subscription and invoice that followed.
 */
export const EXAMPLE = {
  merchantId: 'ff613ee1-fe5c-466d-8756-658678551110',
  projectId: 'ef9238db-8506-45d2-9f44-ceb035f33c2d',
  testKeyId: 'ad64e87f-4650-407f-9733-80dd916b3ce6',
  liveKeyId: '87498202-076c-40c8-a82d-c6e09a194444',
  planId: 'baea837a-06ab-4cfb-9510-cd42026464cc',
  /** The plan the example subscription moves to (docs/api-behaviour.md §18). */
  upgradePlanId: '5b0f3b7e-2d4c-4f0e-9a55-6f1e8c2d7a31',
  checkoutSessionId: 'b61108c5-17cd-411a-8415-819dd792fe02',
  checkoutCode: 'q7Xr2mKp9LsT4vBn',
  customerId: 'ac3c3ddb-4eec-4de9-840a-1b77d36a38ea',
  subscriptionId: 'b641a59e-66cd-426c-868f-d6983e96217c',
  invoiceId: 'ff700b66-b6ab-402c-8a7f-115a7ebf7ff1',
  refundId: 'f7800ccc-7924-4953-897d-02131490cf8b',
  policyId: '4a44ad8d-b628-48c2-998f-2ef3061b400d',
  couponId: '057c4cc7-b6cc-4f51-becc-faaee307bc8d',
  taxRateId: '3d1f0b6e-8c2a-4e57-9b1d-5f7a2c9e4b10',
  usageRecordId: '09da5b58-ca2d-44b1-9c3a-c923c4d3edcc',
  webhookId: 'b768852b-41a6-40ab-ae50-9cd0c823e416',
  deliveryId: '54340c9b-d660-4f5f-858e-c6fcffaa698c',
  eventId: 'c3f7fbe3-53d6-4a5d-a2a3-8983f2bd0d53',
  customerEmail: 'ada@example.com',
  /** When the story starts: the merchant registers, creates a plan, the customer pays. */
  createdAt: '2026-03-02T09:15:00.000Z',
  periodEnd: '2026-04-02T09:15:00.000Z',
  secret: 'whsec_NhcBVQhKnID+nJPxMcVKFbUew6IvAGRWNtSOL3Rs4wA=',
  /** The platform's public address in the examples' links (PUBLIC_URL). */
  publicUrl: 'https://billing.example.com',
  /** What follows a document's id in the token of its link (docs/api-behaviour.md §22). */
  linkMac: 'Xq3vN8sK1pR7tY2wB5mD9fH4jL6cZ0aE3gU8iO1kS7n',
} as const;
