import { randomUUID } from 'node:crypto';
import type { EventName } from './event-catalogue';

/**
 * The `data` of a test send (POST /webhooks/test): the event's shape (contract 12) with sample
 * values, marked `"test": true`, so a merchant can build and check a receiver before real
 * events flow.
 */
export function mockEventData(event: EventName, at: Date): Record<string, unknown> {
  const created = at.toISOString();
  const customerId = randomUUID();
  if (event.startsWith('invoice.')) {
    return {
      test: true,
      id: randomUUID(),
      amount: 50,
      currency: 'NGN',
      customer_email: 'customer@example.com',
      status: event === 'invoice.paid' ? 'PAID' : event === 'invoice.voided' ? 'VOID' : 'OPEN',
      paid_at: event === 'invoice.paid' ? created : null,
      subscription_id: randomUUID(),
      customer_id: customerId,
    };
  }
  if (event.startsWith('subscription.')) {
    const status: Record<string, string> = {
      'subscription.past_due': 'PAST_DUE',
      'subscription.paused': 'PAUSED',
      'subscription.cancelled': 'CANCELLED',
      'subscription.expired': 'EXPIRED',
      'subscription.trial_will_end': 'TRIALING',
    };
    return {
      test: true,
      id: randomUUID(),
      status: status[event] ?? 'ACTIVE',
      customer_id: customerId,
      plan_id: randomUUID(),
      created_at: created,
      ...(event === 'subscription.cancelled' ? { refund: null } : {}),
    };
  }
  return { test: true, id: randomUUID(), created_at: created };
}
