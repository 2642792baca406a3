import { z } from 'zod';
import { ANALYTICS_FACT_KINDS, SUBSCRIPTION_STATUSES, type AnalyticsFact } from '@billing/analytics';
import type { EventEnvelope } from '@billing/platform';
import type { ScopedFact } from '../domain/read-model-changes';

const currency = z.string().regex(/^[A-Z]{3}$/);
const minorUnits = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
/** A signed amount: the tax of a downgrade's credit invoice is negative (docs/api-behaviour.md §18, §21). */
const signedMinorUnits = z.number().int().min(-Number.MAX_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER);

/** AnalyticsFact of @billing/analytics, checked: a fact that is not one is refused (the event is parked). */
const analyticsFactSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal(ANALYTICS_FACT_KINDS[0]),
    subscription_id: z.string().min(1),
    customer_id: z.string().min(1),
    currency,
    status: z.enum(SUBSCRIPTION_STATUSES),
    contributing: z.boolean(),
    mrr: minorUnits,
  }),
  z.object({
    kind: z.literal(ANALYTICS_FACT_KINDS[1]),
    invoice_id: z.string().min(1),
    customer_id: z.string().min(1),
    currency,
    charged: minorUnits,
    tax: signedMinorUnits,
  }),
  z.object({
    kind: z.literal(ANALYTICS_FACT_KINDS[2]),
    refund_id: z.string().min(1),
    currency,
    amount: minorUnits,
  }),
]);

export class InvalidAnalyticsFact extends Error {
  constructor(eventId: string, reason: string) {
    super(`event ${eventId}: ${reason}`);
    this.name = 'InvalidAnalyticsFact';
  }
}

/**
 * The facts an event carries on its envelope's `analytics` field (one fact, or a list), with the
 * envelope's project, mode and time (docs/api-behaviour.md §25). An event without the field
 * carries none: the consumer acknowledges it and changes nothing. A malformed fact throws.
 */
export function scopedFactsOf(envelope: EventEnvelope): ScopedFact[] {
  if (envelope.analytics === undefined || envelope.analytics === null) return [];
  const given: unknown[] = Array.isArray(envelope.analytics) ? envelope.analytics : [envelope.analytics];
  if (given.length === 0) return [];
  if (typeof envelope.project_id !== 'string' || typeof envelope.livemode !== 'boolean') {
    throw new InvalidAnalyticsFact(envelope.id, 'analytics facts need the project and mode of their event');
  }
  const at = Date.parse(envelope.created_at);
  if (!Number.isFinite(at)) throw new InvalidAnalyticsFact(envelope.id, 'created_at is not a time');
  return given.map((raw) => {
    const parsed = analyticsFactSchema.safeParse(raw);
    if (!parsed.success) throw new InvalidAnalyticsFact(envelope.id, z.prettifyError(parsed.error));
    return {
      eventId: envelope.id,
      projectId: envelope.project_id as string,
      livemode: envelope.livemode as boolean,
      at,
      fact: parsed.data as AnalyticsFact,
    };
  });
}
