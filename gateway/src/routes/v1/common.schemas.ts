import { z } from 'zod';
import { hasAtMostMinorDigits } from '@billing/platform';

/** ISO 8601, UTC (contract section 1). */
export const timestamp = z.iso.datetime();

/** A path id; anything that is not an id cannot name a record, so it answers 404 with this detail. */
export const idParam = (what: string) => z.guid({ error: `${what} not found` }).meta({ description: `${what} id` });

/** Names of projects and keys, as identity accepts them. */
export const displayName = z.string().trim().min(1).max(200);

/** Services always set these; a reply without one is a service bug, answered as a 500. */
export function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`gRPC reply without ${what}`);
  return value;
}

export const iso = (date: Date | undefined, what = 'created_at'): string => required(date, what).toISOString();

/** Above this, minor units would no longer be exact integers: a 422, not a 500 later. */
const MAX_MONEY = Math.floor(Number.MAX_SAFE_INTEGER / 100);

/** Money in the currency's major unit, at most two decimals (contract section 1). */
export const money = z
  .number()
  .min(0)
  .max(MAX_MONEY)
  .refine(hasAtMostMinorDigits, { message: 'Input should have at most 2 decimal places' })
  .meta({ description: 'Major currency unit (e.g. 5000.5 NGN), at most 2 decimals' });

/** `?limit=&starting_after=` of every list (contract section 1). */
export const pageQuery = {
  limit: z.coerce.number().int().min(1).max(100).optional().meta({ description: '1..100, default 20' }),
  starting_after: z.string().optional().meta({ description: 'The id of the last item of the previous page' }),
};

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
