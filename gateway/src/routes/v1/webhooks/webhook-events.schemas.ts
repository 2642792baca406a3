import { z } from 'zod';
import { CURRENCIES } from '@billing/platform';
import { CheckoutSessionSchema, completedCheckoutSessionExample } from '../checkout/checkout.schemas';
import { EXAMPLE, timestamp } from '../common.schemas';
import { creditNoteExample, CreditNoteSchema } from '../credit-notes/credit-notes.schemas';
import { customerExample, CustomerSchema } from '../customers/customers.schemas';
import { INVOICE_STATUSES, invoiceTaxFields } from '../invoices/invoices.schemas';
import {
  refundExample,
  RefundSchema,
  SUBSCRIPTION_STATUSES,
  subscriptionListItemExample,
  SubscriptionListItemSchema,
} from '../subscriptions/subscriptions.schemas';

/**
 * The bodies the notification service POSTs to merchants' webhooks: one per event of its
 * catalogue (services/notification/src/domain/event-catalogue.ts), `data` as billing and catalog
 * write it when the change commits (services/billing/src/events/<resource>.events.ts,
 * services/catalog/src/events/checkout-session.events.ts).
 */

const testSend = z.literal(true).optional().meta({ description: 'Present only in a test send (POST /webhooks/test)' });

const SubscriptionEventData = SubscriptionListItemSchema.extend({
  customer_id: z.uuid(),
  plan_id: z.uuid(),
  test: testSend,
}).meta({ id: 'SubscriptionEventData', description: 'The subscription list view with its customer and plan ids' });

const TrialWillEndEventData = SubscriptionEventData.extend({
  trial_end: timestamp.meta({ description: 'When the trial ends and the first period is charged' }),
}).meta({ id: 'TrialWillEndEventData' });

const SubscriptionCancelledEventData = SubscriptionEventData.extend({
  refund: RefundSchema.nullable().meta({
    description:
      'What the cancellation refunds (PENDING until the provider takes it: then refund.processed); null when no ' +
      'cancellation policy applies, at period end and when dunning gave up',
  }),
}).meta({ id: 'SubscriptionCancelledEventData' });

const SubscriptionUpdatedEventData = SubscriptionEventData.extend({
  previous_plan_id: z.uuid().meta({
    description: 'The plan before this update; the same as plan_id when only a pending change was set or dropped',
  }),
  pending_plan_id: z.uuid().nullable().meta({ description: 'The plan a change at the period end moves to, or null' }),
  pending_plan_change_at: timestamp.nullable().meta({ description: 'When that pending change happens, or null' }),
}).meta({ id: 'SubscriptionUpdatedEventData' });

const InvoiceEventData = z
  .object({
    id: z.uuid(),
    amount: z.number().meta({
      description: 'Major currency unit: the invoice total, subtotal - discount + the exclusive taxes',
    }),
    discount: z.number().meta({ description: "The DISCOUNT line's amount as a positive number (0 when none)" }),
    ...invoiceTaxFields,
    credit_applied: z.number().meta({ description: "The customer's balance this invoice used" }),
    amount_due: z.number().meta({ description: 'amount - credit_applied: what the card is charged' }),
    currency: z.enum(CURRENCIES),
    customer_email: z.string(),
    status: z.enum(INVOICE_STATUSES),
    paid_at: timestamp.nullable(),
    subscription_id: z.uuid(),
    customer_id: z.uuid(),
    test: testSend,
  })
  .meta({ id: 'InvoiceEventData', description: 'The invoice in short; GET /invoices/{id} has its lines' });

const PaymentFailedEventData = InvoiceEventData.extend({
  failure: z.string().meta({ description: "The payment provider's reason, e.g. Insufficient Funds" }),
}).meta({ id: 'PaymentFailedEventData' });

const RefundProcessedEventData = RefundSchema.extend({ subscription_id: z.uuid() }).meta({
  id: 'RefundProcessedEventData',
});

interface WebhookEvent<S extends z.ZodType> {
  /** When the platform sends it. */
  summary: string;
  description: string;
  data: S;
  example: z.input<S>;
}

const webhookEvent = <S extends z.ZodType>(event: WebhookEvent<S>): WebhookEvent<S> => event;

const subscriptionEvent = (status: (typeof SUBSCRIPTION_STATUSES)[number], summary: string, description: string) =>
  webhookEvent({
    summary,
    description,
    data: SubscriptionEventData,
    example: {
      ...subscriptionListItemExample,
      status,
      customer_id: EXAMPLE.customerId,
      plan_id: EXAMPLE.planId,
    },
  });

const invoiceExample = {
  id: EXAMPLE.invoiceId,
  amount: 15000,
  discount: 0,
  tax: 0,
  total_excluding_tax: 15000,
  total_tax_amounts: [],
  tax_note: null,
  credit_applied: 0,
  amount_due: 15000,
  currency: 'NGN',
  customer_email: EXAMPLE.customerEmail,
  status: 'OPEN',
  paid_at: null,
  subscription_id: EXAMPLE.subscriptionId,
  customer_id: EXAMPLE.customerId,
} satisfies z.input<typeof InvoiceEventData>;

const invoiceEvent = (status: (typeof INVOICE_STATUSES)[number], summary: string, description: string) =>
  webhookEvent({
    summary,
    description,
    data: InvoiceEventData,
    example: { ...invoiceExample, status, paid_at: status === 'PAID' ? EXAMPLE.createdAt : null },
  });

/** Every event a webhook can subscribe to, by name. */
export const WEBHOOK_EVENTS = {
  'checkout.session.completed': webhookEvent({
    summary: 'A customer paid a checkout session',
    description:
      'The session, COMPLETED, with the `customer_id` and `subscription_id` the payment created. The ' +
      'subscription.created, invoice.created and invoice.paid of the same payment follow.',
    data: CheckoutSessionSchema,
    example: completedCheckoutSessionExample,
  }),
  'checkout.session.expired': webhookEvent({
    summary: 'A checkout session expired unpaid',
    description: 'Its time ran out, or POST /checkout/sessions/{code}/expire ended it. Its link takes no payment.',
    data: CheckoutSessionSchema,
    example: {
      ...completedCheckoutSessionExample,
      status: 'EXPIRED',
      customer_id: null,
      subscription_id: null,
      completed_at: null,
    },
  }),
  'customer.created': webhookEvent({
    summary: 'A customer was created',
    description: 'Through POST /customers, or by a paid checkout with an e-mail the project did not know.',
    data: CustomerSchema,
    example: customerExample,
  }),
  'subscription.created': subscriptionEvent(
    'ACTIVE',
    'A subscription started',
    'By a paid checkout or POST /subscriptions; TRIALING when it starts with a free trial.',
  ),
  'subscription.trial_will_end': webhookEvent({
    summary: 'A trial ends in 3 days',
    description:
      'Sent 3 days before `trial_end` (at once for a shorter trial): the saved card is charged when the trial ends.',
    data: TrialWillEndEventData,
    example: {
      ...subscriptionListItemExample,
      status: 'TRIALING',
      customer_id: EXAMPLE.customerId,
      plan_id: EXAMPLE.planId,
      trial_end: EXAMPLE.periodEnd,
    },
  }),
  'subscription.renewed': subscriptionEvent(
    'ACTIVE',
    'A subscription was paid for a new period',
    "The new period's invoice was paid: on renewal, at a trial's end, or by a dunning retry (PAST_DUE -> ACTIVE).",
  ),
  'subscription.past_due': subscriptionEvent(
    'PAST_DUE',
    'A charge of a subscription failed',
    'A renewal, trial-end or resume charge was declined: dunning retries the open invoice; the subscription is ' +
      'cancelled if the last retry fails too.',
  ),
  'subscription.paused': subscriptionEvent('PAUSED', 'A subscription was paused', 'By POST /subscriptions/{id}/pause.'),
  'subscription.resumed': subscriptionEvent(
    'ACTIVE',
    'A paused subscription resumed',
    'By POST /subscriptions/{id}/resume, its new period paid (a failed charge sends subscription.past_due instead).',
  ),
  'subscription.cancelled': webhookEvent({
    summary: 'A subscription was cancelled',
    description:
      'By the merchant (`cancelled_by` MERCHANT: now, or at the end of the period it asked for) or by dunning ' +
      'giving up (SYSTEM). `refund` is what the cancellation refunds.',
    data: SubscriptionCancelledEventData,
    example: {
      ...subscriptionListItemExample,
      status: 'CANCELLED',
      cancelled_at: '2026-03-05T12:00:00.000Z',
      cancelled_by: 'MERCHANT',
      customer_id: EXAMPLE.customerId,
      plan_id: EXAMPLE.planId,
      refund: refundExample,
    },
  }),
  'subscription.expired': subscriptionEvent(
    'EXPIRED',
    'A fixed-term subscription ended',
    'Its `billing_cycles` periods are over; nothing more is billed.',
  ),
  'subscription.updated': webhookEvent({
    summary: 'A subscription changed plan, or a plan change was scheduled or dropped',
    description:
      'By POST /subscriptions/{id}/change-plan: the plan changed now (after its proration invoice was paid, when ' +
      'one was charged), a change was set for the end of the period (`pending_plan_id`) or dropped; and when the ' +
      'renewal makes a pending change. `previous_plan_id` is the plan before this update.',
    data: SubscriptionUpdatedEventData,
    example: {
      ...subscriptionListItemExample,
      plan_name: 'Business',
      amount: 30000,
      customer_id: EXAMPLE.customerId,
      plan_id: EXAMPLE.upgradePlanId,
      previous_plan_id: EXAMPLE.planId,
      pending_plan_id: null,
      pending_plan_change_at: null,
    },
  }),
  'invoice.created': invoiceEvent(
    'OPEN',
    'An invoice was opened',
    "A new period's invoice (the first one, or a renewal with its metered usage); it is charged right after.",
  ),
  'invoice.paid': invoiceEvent(
    'PAID',
    'An invoice was paid',
    'By a checkout, a renewal charge, a dunning retry or POST /invoices/{id}/pay.',
  ),
  'invoice.payment_failed': webhookEvent({
    summary: 'A charge of an invoice failed',
    description: 'The invoice stays OPEN; `failure` says why. Dunning retries it (see subscription.past_due).',
    data: PaymentFailedEventData,
    example: { ...invoiceExample, failure: 'Insufficient Funds' },
  }),
  'invoice.voided': invoiceEvent(
    'VOID',
    'An invoice was voided',
    'By POST /invoices/{id}/void; nothing more is charged for it.',
  ),
  'refund.processed': webhookEvent({
    summary: 'A cancellation refund reached the payment provider',
    description: 'The refund of a subscription.cancelled is PROCESSED: the money is on its way back to the card.',
    data: RefundProcessedEventData,
    example: { ...refundExample, status: 'PROCESSED', subscription_id: EXAMPLE.subscriptionId },
  }),
  'credit_note.created': webhookEvent({
    summary: 'A credit note was issued',
    description:
      'By POST /invoices/{id}/credit-notes, or by a refund the platform made itself (a cancellation policy\u2019s, ' +
      'reason ORDER_CHANGE). `data` is the credit note, as GET /credit-notes/{id} answers it.',
    data: CreditNoteSchema,
    example: creditNoteExample,
  }),
};

export type WebhookEventName = keyof typeof WEBHOOK_EVENTS;

/** `invoice.payment_failed` -> `InvoicePaymentFailed`. */
const pascalCase = (name: string) =>
  name
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

/** The body of a delivery of `name`: the event's id, name, data and time (deliveryBody in notification). */
const eventBody = (name: string, data: z.ZodType): z.ZodObject =>
  z
    .object({
      id: z.uuid().meta({
        description: 'The event: the same in the deliveries of this event to every webhook, a key to deduplicate on',
      }),
      event: z.literal(name),
      data,
      created_at: timestamp.meta({
        description: "When it happened, on the project's clock (its test clock in test mode)",
      }),
    })
    .meta({ id: `${pascalCase(name)}Event` });

/** The delivery body schema of every event, made once (their ids name components of the document). */
export const WEBHOOK_EVENT_BODIES = Object.fromEntries(
  Object.entries(WEBHOOK_EVENTS).map(([name, event]) => [name, eventBody(name, event.data)]),
) as Record<WebhookEventName, z.ZodObject>;

/** An example delivery body of `name`. */
export const webhookEventExample = (name: WebhookEventName) => ({
  id: EXAMPLE.eventId,
  event: name,
  data: WEBHOOK_EVENTS[name].example,
  created_at: EXAMPLE.createdAt,
});
