import { z } from 'zod';
import { CURRENCIES, toMajorUnits } from '@billing/platform';
import type { billingV1 } from '@billing/proto';
import { EXAMPLE, idParam, iso, metadata, pageQuery, required, timestamp } from '../common.schemas';
import { invoiceExample } from '../invoices/invoices.schemas';
import { subscriptionListItemExample } from '../subscriptions/subscriptions.schemas';

export const CustomerSchema = z
  .object({
    id: z.uuid(),
    email: z.string(),
    name: z.string().nullable(),
    gateway_customer_id: z.string().nullable().meta({ description: "The customer's id at the payment provider" }),
    metadata: z.record(z.string(), z.unknown()),
    livemode: z.boolean(),
    created_at: timestamp,
  })
  .meta({ id: 'Customer' });

/** A subscription as the customer detail view shows it. */
export const CustomerSubscriptionSchema = z
  .object({
    id: z.uuid(),
    plan_name: z.string(),
    status: z.enum(['ACTIVE', 'PAST_DUE', 'CANCELLED', 'PAUSED', 'TRIALING', 'EXPIRED']),
    amount: z.number(),
    currency: z.enum(CURRENCIES),
    interval: z.string(),
    current_period_start: timestamp,
    current_period_end: timestamp,
    cancelled_at: timestamp.nullable(),
  })
  .meta({ id: 'CustomerSubscription' });

/** An invoice as the customer detail view shows it. */
export const CustomerInvoiceSchema = z
  .object({
    id: z.uuid(),
    amount: z.number(),
    currency: z.enum(CURRENCIES),
    status: z.enum(['DRAFT', 'OPEN', 'PAID', 'VOID', 'UNCOLLECTIBLE']),
    due_date: timestamp,
    paid_at: timestamp.nullable(),
  })
  .meta({ id: 'CustomerInvoice' });

export const CustomerDetailSchema = z
  .object({
    customer: CustomerSchema,
    subscriptions: z.array(CustomerSubscriptionSchema),
    invoices: z.array(CustomerInvoiceSchema),
  })
  .meta({ id: 'CustomerDetail' });

export const CreateCustomerBody = z
  .object({
    email: z.email(),
    name: z.string().trim().min(1).max(200).optional(),
    metadata: metadata.optional(),
  })
  .meta({ id: 'CreateCustomerRequest' });

/** The e-mail identifies the customer at the provider, so it is not changed here. */
export const UpdateCustomerBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    metadata: metadata.optional(),
  })
  .meta({ id: 'UpdateCustomerRequest' });

export const ListCustomersQuery = z.object({
  email: z.string().optional().meta({ description: 'Exact e-mail, case-insensitive' }),
  ...pageQuery,
});

export const CustomerIdParams = z.object({ customer_id: idParam('Customer') });

export const toCustomer = (customer: billingV1.Customer): z.input<typeof CustomerSchema> => ({
  id: customer.id,
  email: customer.email,
  name: customer.name ?? null,
  gateway_customer_id: customer.gatewayCustomerId ?? null,
  metadata: customer.metadata ?? {},
  livemode: customer.livemode,
  created_at: iso(customer.createdAt),
});

type Currency = (typeof CURRENCIES)[number];

export const toCustomerDetail = (reply: billingV1.GetCustomerResponse): z.input<typeof CustomerDetailSchema> => ({
  customer: toCustomer(required(reply.customer, 'customer')),
  subscriptions: reply.subscriptions.map((s) => ({
    id: s.id,
    plan_name: s.planName,
    status: s.status as z.input<typeof CustomerSubscriptionSchema>['status'],
    amount: toMajorUnits(s.amount),
    currency: s.currency as Currency,
    interval: s.interval,
    current_period_start: iso(s.currentPeriodStart, 'current_period_start'),
    current_period_end: iso(s.currentPeriodEnd, 'current_period_end'),
    cancelled_at: s.cancelledAt ? s.cancelledAt.toISOString() : null,
  })),
  invoices: reply.invoices.map((i) => ({
    id: i.id,
    amount: toMajorUnits(i.amount),
    currency: i.currency as Currency,
    status: i.status as z.input<typeof CustomerInvoiceSchema>['status'],
    due_date: iso(i.dueDate, 'due_date'),
    paid_at: i.paidAt ? i.paidAt.toISOString() : null,
  })),
});

export const customerExample = {
  id: EXAMPLE.customerId,
  email: EXAMPLE.customerEmail,
  name: 'Ada Obi',
  gateway_customer_id: 'CUS_x8kq2m1v7z3p',
  metadata: { crm_id: '4711' },
  livemode: false,
  created_at: EXAMPLE.createdAt,
} satisfies z.input<typeof CustomerSchema>;

/** The customer of the example subscription and invoice, as its detail view shows them. */
export const customerDetailExample = {
  customer: customerExample,
  subscriptions: [CustomerSubscriptionSchema.parse(subscriptionListItemExample)],
  invoices: [CustomerInvoiceSchema.parse(invoiceExample)],
} satisfies z.input<typeof CustomerDetailSchema>;
