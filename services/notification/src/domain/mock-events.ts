import { randomUUID } from 'node:crypto';
import type { EventName } from './event-catalogue';

/**
 * The `data` of a test send (POST /webhooks/test): the event's shape (docs/api-behaviour.md §12) with sample
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
      discount: 0,
      tax: 0,
      total_excluding_tax: 50,
      total_tax_amounts: [],
      tax_note: null,
      credit_applied: 0,
      amount_due: 50,
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
    const cancelled = event === 'subscription.cancelled';
    const planId = randomUUID();
    return {
      test: true,
      id: randomUUID(),
      customer_email: 'customer@example.com',
      plan_name: 'Sample plan',
      status: status[event] ?? 'ACTIVE',
      amount: 50,
      currency: 'NGN',
      interval: 'monthly',
      current_period_start: created,
      current_period_end: new Date(at.getTime() + 30 * 24 * 3600 * 1000).toISOString(),
      cancelled_at: cancelled ? created : null,
      cancel_at_period_end: false,
      cancelled_by: cancelled ? 'MERCHANT' : null,
      created_at: created,
      customer_id: customerId,
      plan_id: planId,
      ...(cancelled ? { refund: null } : {}),
      ...(event === 'subscription.updated'
        ? { previous_plan_id: randomUUID(), pending_plan_id: null, pending_plan_change_at: null }
        : {}),
    };
  }
  if (event === 'credit_note.created') {
    return {
      test: true,
      id: randomUUID(),
      number: 'INV-000001-CN1',
      invoice_id: randomUUID(),
      customer_id: customerId,
      amount: 50,
      currency: 'NGN',
      tax: [],
      reason: 'ORDER_CHANGE',
      refund_to: 'CARD',
      refund_id: randomUUID(),
      balance_transaction_id: null,
      memo: null,
      status: 'ISSUED',
      // A sample: a test event names no real note, so its link opens nothing.
      credit_note_pdf: 'https://billing.example.com/cn/sample/pdf',
      livemode: false,
      created_at: created,
    };
  }
  return { test: true, id: randomUUID(), created_at: created };
}
