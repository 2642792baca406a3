import { z } from 'zod';
import { CURRENCIES, postalAddressMessage, postalAddressOfMessage, toMajorUnits } from '@billing/platform';
import type { billingV1, commonV1 } from '@billing/proto';
import {
  EXAMPLE,
  idParam,
  iso,
  metadata,
  nonZeroSignedMoney,
  nullFields,
  pageQuery,
  PostalAddressBody,
  PostalAddressSchema,
  required,
  setTo,
  taxIdText,
  timestamp,
} from '../common.schemas';
import { invoiceExample } from '../invoices/invoices.schemas';
import { subscriptionListItemExample } from '../subscriptions/subscriptions.schemas';

/** How a customer is taxed (docs/api-behaviour.md §21). */
export const TAX_EXEMPTIONS = ['NONE', 'EXEMPT', 'REVERSE'] as const;

const TAX_EXEMPT_DESCRIPTION =
  'NONE: taxed at its subscriptions\' rates; EXEMPT: no tax; REVERSE: no tax, the invoices say "Reverse ' +
  'charge" (the customer accounts for it). Applies to invoices made from then on';

/** The languages of a customer's invoice documents (docs/api-behaviour.md §22). */
export const DOCUMENT_LOCALES = ['en', 'fr'] as const;

const preferredLocale = z
  .enum(DOCUMENT_LOCALES)
  .meta({ description: "The language of the customer's invoice documents: en (the default) or fr" });

/** The buyer details a PATCH may clear with null. */
const CLEARABLE_BUYER_DETAILS = ['address', 'tax_id'] as const;

const taxExempt = z
  .string()
  .transform((value) => value.toUpperCase())
  .pipe(z.enum(TAX_EXEMPTIONS))
  .meta({ description: TAX_EXEMPT_DESCRIPTION });

export const CustomerSchema = z
  .object({
    id: z.uuid(),
    email: z.string(),
    name: z.string().nullable(),
    gateway_customer_id: z.string().nullable().meta({ description: "The customer's id at the payment provider" }),
    metadata: z.record(z.string(), z.unknown()),
    balance: z.number().meta({
      description:
        'Credit the merchant owes the customer (major unit, never below 0); every new invoice uses it before ' +
        'charging the card',
    }),
    balance_currency: z.enum(CURRENCIES).nullable().meta({
      description:
        "The balance's currency: null until its first change; only invoices in this currency use the balance",
    }),
    tax_exempt: z.enum(TAX_EXEMPTIONS).meta({ description: TAX_EXEMPT_DESCRIPTION }),
    address: PostalAddressSchema.nullable().meta({
      description: "The buyer's address on its invoices; null until given",
    }),
    tax_id: z.string().nullable().meta({ description: "The buyer's tax ID on its invoices; null until given" }),
    preferred_locale: preferredLocale,
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
    discount: z.number().meta({ description: "The DISCOUNT line's amount as a positive number (0 when none)" }),
    credit_applied: z.number().meta({ description: "The customer's balance this invoice used" }),
    amount_due: z.number().meta({
      description: 'amount - credit_applied: what the card is charged; 0 means PAID without a charge',
    }),
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
    tax_exempt: taxExempt.optional().meta({ description: 'Default NONE' }),
    address: PostalAddressBody.optional(),
    tax_id: taxIdText.optional().meta({ description: '1..40 characters (a VAT or tax number)' }),
    preferred_locale: preferredLocale.optional(),
  })
  .meta({ id: 'CreateCustomerRequest' });

/** The e-mail identifies the customer at the provider, so it is not changed here. */
export const UpdateCustomerBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    metadata: metadata.optional(),
    tax_exempt: taxExempt.optional(),
    address: PostalAddressBody.nullable().optional().meta({ description: 'Replaced as a whole; null clears it' }),
    tax_id: taxIdText
      .nullable()
      .optional()
      .meta({ description: '1..40 characters (a VAT or tax number); null clears it' }),
    preferred_locale: preferredLocale.optional(),
  })
  .meta({ id: 'UpdateCustomerRequest' });

/** A PATCH as billing takes it: the values to set, and the buyer details sent as null to clear. */
export const updateCustomerRequest = (
  scope: commonV1.ProjectScope,
  customerId: string,
  body: z.output<typeof UpdateCustomerBody>,
): billingV1.UpdateCustomerRequest => ({
  scope,
  customerId,
  name: body.name,
  metadata: body.metadata,
  taxExempt: body.tax_exempt,
  address: body.address ? postalAddressMessage(body.address) : undefined,
  taxId: setTo(body.tax_id),
  preferredLocale: body.preferred_locale,
  clearedFields: nullFields(body, CLEARABLE_BUYER_DETAILS),
});

export const ListCustomersQuery = z.object({
  email: z.string().optional().meta({ description: 'Exact e-mail, case-insensitive' }),
  ...pageQuery,
});

export const CustomerIdParams = z.object({ customer_id: idParam('Customer') });

export const BALANCE_TRANSACTION_TYPES = [
  'ADJUSTMENT',
  'PRORATION_CREDIT',
  'APPLIED_TO_INVOICE',
  'CREDIT_NOTE',
] as const;

/** The longest adjustment description billing keeps (services/billing/src/domain/customer-balance.ts). */
const MAX_DESCRIPTION_LENGTH = 500;

export const CreateBalanceAdjustmentBody = z
  .object({
    amount: nonZeroSignedMoney,
    currency: z
      .enum(CURRENCIES)
      .optional()
      .meta({
        description:
          "Default: the balance's currency, else the currency of the customer's subscriptions, else NGN. " +
          "Another currency than the balance's is refused (400)",
      }),
    description: z.string().trim().max(MAX_DESCRIPTION_LENGTH).optional(),
  })
  .meta({ id: 'CreateBalanceAdjustmentRequest' });

/** One change of a customer's balance. */
export const BalanceTransactionSchema = z
  .object({
    id: z.uuid(),
    customer_id: z.uuid(),
    type: z.enum(BALANCE_TRANSACTION_TYPES).meta({
      description:
        'ADJUSTMENT: made through this API; PRORATION_CREDIT: the unused time of a downgrade; ' +
        'APPLIED_TO_INVOICE: credit an invoice used (negative) or gave back when voided (positive); ' +
        'CREDIT_NOTE: a credit note of a paid invoice to the balance',
    }),
    amount: z.number().meta({ description: 'Major currency unit; positive adds credit, negative takes it' }),
    balance_after: z.number().meta({ description: 'The balance this change left (major currency unit)' }),
    currency: z.enum(CURRENCIES).meta({ description: "The balance's currency" }),
    description: z.string().nullable(),
    invoice_id: z.uuid().nullable().meta({
      description: 'The invoice that used, returned or gave the credit (a credit note: the invoice credited)',
    }),
    livemode: z.boolean(),
    created_at: timestamp,
  })
  .meta({ id: 'BalanceTransaction' });

export const ListBalanceTransactionsQuery = z.object({ ...pageQuery });

export const toBalanceTransaction = (t: billingV1.BalanceTransaction): z.input<typeof BalanceTransactionSchema> => ({
  id: t.id,
  customer_id: t.customerId,
  type: t.type as (typeof BALANCE_TRANSACTION_TYPES)[number],
  amount: toMajorUnits(t.amount),
  balance_after: toMajorUnits(t.balanceAfter),
  currency: t.currency as Currency,
  description: t.description ?? null,
  invoice_id: t.invoiceId ?? null,
  livemode: t.livemode,
  created_at: iso(t.createdAt),
});

export const toCustomer = (customer: billingV1.Customer): z.input<typeof CustomerSchema> => ({
  id: customer.id,
  email: customer.email,
  name: customer.name ?? null,
  gateway_customer_id: customer.gatewayCustomerId ?? null,
  metadata: customer.metadata ?? {},
  balance: toMajorUnits(customer.balance),
  balance_currency: (customer.balanceCurrency ?? null) as Currency | null,
  tax_exempt: customer.taxExempt as (typeof TAX_EXEMPTIONS)[number],
  address: customer.address ? postalAddressOfMessage(customer.address) : null,
  tax_id: customer.taxId ?? null,
  preferred_locale: customer.preferredLocale as (typeof DOCUMENT_LOCALES)[number],
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
    discount: toMajorUnits(i.discount),
    credit_applied: toMajorUnits(i.creditApplied),
    amount_due: toMajorUnits(i.amountDue),
  })),
});

export const customerExample = {
  id: EXAMPLE.customerId,
  email: EXAMPLE.customerEmail,
  name: 'Ada Obi',
  gateway_customer_id: 'CUS_x8kq2m1v7z3p',
  metadata: { crm_id: '4711' },
  balance: 0,
  balance_currency: null,
  tax_exempt: 'NONE',
  address: {
    line1: '4 Bourdillon Road',
    line2: 'Ikoyi',
    city: 'Lagos',
    state: 'Lagos',
    postal_code: '101233',
    country: 'NG',
  },
  tax_id: null,
  preferred_locale: 'en',
  livemode: false,
  created_at: EXAMPLE.createdAt,
} satisfies z.input<typeof CustomerSchema>;

/** Credit granted to the example customer: a goodwill gesture after an outage. */
export const balanceAdjustmentExample = {
  id: '6c1f2e84-9a53-4c1b-b7a1-2f0d5e8c4a17',
  customer_id: EXAMPLE.customerId,
  type: 'ADJUSTMENT',
  amount: 3000,
  balance_after: 3000,
  currency: 'NGN' as const,
  description: 'Goodwill credit for the March outage',
  invoice_id: null,
  livemode: false,
  created_at: '2026-03-20T14:00:00.000Z',
} satisfies z.input<typeof BalanceTransactionSchema>;

/** The credit used by the example customer's renewal invoice. */
export const appliedToInvoiceExample = {
  id: '0b7d4f6e-2c8a-4e1f-9d35-7a6b1c2e8f40',
  customer_id: EXAMPLE.customerId,
  type: 'APPLIED_TO_INVOICE',
  amount: -3000,
  balance_after: 0,
  currency: 'NGN' as const,
  description: 'Applied to invoice INV-000002',
  invoice_id: '5d2e8a1c-7b4f-4c9e-a06d-3f1b9e7c2d58',
  livemode: false,
  created_at: EXAMPLE.periodEnd,
} satisfies z.input<typeof BalanceTransactionSchema>;

/** The customer of the example subscription and invoice, as its detail view shows them. */
export const customerDetailExample = {
  customer: customerExample,
  subscriptions: [CustomerSubscriptionSchema.parse(subscriptionListItemExample)],
  invoices: [CustomerInvoiceSchema.parse(invoiceExample)],
} satisfies z.input<typeof CustomerDetailSchema>;
