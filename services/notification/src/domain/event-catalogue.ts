import type { FieldViolation } from '@billing/platform';

/** Every event the platform emits (docs/api-behaviour.md §12); a webhook subscribes to some or "*". */
export const EVENT_CATALOGUE = [
  'checkout.session.completed',
  'checkout.session.expired',
  'customer.created',
  'subscription.created',
  'subscription.trial_will_end',
  'subscription.renewed',
  'subscription.past_due',
  'subscription.paused',
  'subscription.resumed',
  'subscription.cancelled',
  'subscription.expired',
  'subscription.updated',
  'invoice.created',
  'invoice.paid',
  'invoice.payment_failed',
  'invoice.voided',
  'refund.processed',
  'credit_note.created',
] as const;

export type EventName = (typeof EVENT_CATALOGUE)[number];

/** Subscribes a webhook to every event, including ones added to the catalogue later. */
export const ALL_EVENTS = '*';

const KNOWN = new Set<string>([...EVENT_CATALOGUE, ALL_EVENTS]);

/** Field violations of a webhook's event list: non-empty, each a catalogue name or "*". */
export function eventListViolations(events: string[]): FieldViolation[] {
  if (events.length === 0) {
    return [{ loc: ['body', 'events'], msg: 'List should have at least 1 item', type: 'too_short', input: events }];
  }
  return events.flatMap((event, index) =>
    KNOWN.has(event)
      ? []
      : [
          {
            loc: ['body', 'events', index],
            msg: `Unknown event; expected one of the catalogue or "${ALL_EVENTS}"`,
            type: 'enum',
            input: event,
          },
        ],
  );
}

/** The list as stored: duplicates dropped, "*" alone when present. */
export function normalizedEvents(events: string[]): string[] {
  return events.includes(ALL_EVENTS) ? [ALL_EVENTS] : [...new Set(events)];
}

const CATALOGUE = new Set<string>(EVENT_CATALOGUE);

/**
 * Whether a webhook with these events receives `event`. Only events of the catalogue reach
 * merchants: "*" is every event of it, and the platform's internal events (identity's
 * merchant.*, docs/events-and-test-mode.md) on the same stream are never delivered.
 */
export const subscribesTo = (events: string[], event: string): boolean =>
  CATALOGUE.has(event) && (events.includes(ALL_EVENTS) || events.includes(event));
