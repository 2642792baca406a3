import { billingV1 } from '@billing/proto';
import type { DocumentLinks } from '../domain/document-links';
import { postalAddressMessage, sellerMessage, type UnaryHandlers } from '@billing/platform';
import type {
  CreditNoteModel,
  CustomerBalanceTransactionModel,
  CustomerModel,
  InvoiceModel,
  SubscriptionModel,
  TaxRateModel,
} from '../db/models';
import type { InvoiceBuyer } from '../domain/invoice-parties';
import type { TaxAmount } from '../domain/invoice-totals';
import type { RefundView } from '../domain/cancellation-refund';
import type { RateAmount } from '../domain/credit-notes';
import {
  discountFromCoupon,
  discountOf,
  type CouponTerms,
  type SubscriptionDiscount,
} from '../domain/subscription-discount';
import type { InvoiceView } from '../read-models/invoice.read-model';
import type { SubscriptionView } from '../read-models/subscription.read-model';

/**
 * The billing.v1 messages the handlers answer with, each built from a model or read model in one
 * place, and the coupon terms a request carries. Money stays in minor units here: the gateway
 * turns it into the API's major units.
 */

export type BillingHandlers = UnaryHandlers<billingV1.BillingServiceServer>;

export const toCustomer = (c: CustomerModel): billingV1.Customer => ({
  id: c.id,
  email: c.email,
  name: c.name ?? undefined,
  gatewayCustomerId: c.gatewayCustomerId ?? undefined,
  metadata: c.metadata,
  livemode: c.livemode,
  createdAt: c.createdAt,
  balance: c.balance,
  balanceCurrency: c.balanceCurrency ?? undefined,
  taxExempt: c.taxExempt,
  address: c.address ? postalAddressMessage(c.address) : undefined,
  taxId: c.taxId ?? undefined,
  preferredLocale: c.preferredLocale,
});

/** The buyer an invoice kept (docs/api-behaviour.md §22). */
const toBuyer = (b: InvoiceBuyer): billingV1.InvoiceBuyer => ({
  name: b.name ?? undefined,
  email: b.email,
  address: b.address ? postalAddressMessage(b.address) : undefined,
  taxId: b.tax_id ?? undefined,
  preferredLocale: b.preferred_locale,
});

export const toTaxRate = (r: TaxRateModel): billingV1.TaxRate => ({
  id: r.id,
  displayName: r.displayName,
  percentage: r.percentage,
  inclusive: r.inclusive,
  country: r.country ?? undefined,
  jurisdiction: r.jurisdiction ?? undefined,
  description: r.description ?? undefined,
  isActive: r.isActive,
  livemode: r.livemode,
  createdAt: r.createdAt,
});

/** One entry of an invoice's (or a preview's) total_tax_amounts. */
export const toInvoiceTaxAmount = (t: TaxAmount): billingV1.InvoiceTaxAmount => ({
  taxRateId: t.taxRateId,
  displayName: t.displayName,
  percentage: t.percentage,
  inclusive: t.inclusive,
  taxableAmount: t.taxableAmount,
  amount: t.amount,
});

/** A subscription's tax rates (docs/api-behaviour.md §21): its own, or (null) its plan's. */
const toSubscriptionTaxRates = (taxRateIds: string[] | null): billingV1.SubscriptionTaxRates => ({
  fromPlan: taxRateIds === null,
  ids: taxRateIds ?? [],
});

/** A request's tax rates: unset -> undefined, from the plan -> null, else the ids. */
export const requestedTaxRateIds = (r: billingV1.SubscriptionTaxRates | undefined): string[] | null | undefined =>
  r === undefined ? undefined : r.fromPlan ? null : r.ids;

export const toBalanceTransaction = (t: CustomerBalanceTransactionModel): billingV1.BalanceTransaction => ({
  id: t.id,
  customerId: t.customerId,
  type: t.type,
  amount: t.amount,
  balanceAfter: t.balanceAfter,
  currency: t.currency,
  description: t.description ?? undefined,
  invoiceId: t.invoiceId ?? undefined,
  livemode: t.livemode,
  createdAt: t.createdAt,
});

export const toSubscriptionSummary = (s: SubscriptionModel): billingV1.SubscriptionSummary => ({
  id: s.id,
  planId: s.planId,
  planName: s.planName,
  status: s.status,
  amount: s.amount,
  currency: s.currency,
  interval: s.interval,
  currentPeriodStart: s.currentPeriodStart,
  currentPeriodEnd: s.currentPeriodEnd,
  cancelledAt: s.cancelledAt ?? undefined,
  createdAt: s.createdAt,
});

export const toInvoiceSummary = (i: InvoiceModel): billingV1.InvoiceSummary => ({
  id: i.id,
  amount: i.amount,
  currency: i.currency,
  status: i.status,
  dueDate: i.dueDate,
  paidAt: i.paidAt ?? undefined,
  createdAt: i.createdAt,
  discount: i.discount,
  creditApplied: i.creditApplied,
  amountDue: i.amountDue,
});

export const toInvoice = ({
  invoice: i,
  lines,
  customerEmail,
  creditNotes,
  links,
}: InvoiceView): billingV1.Invoice => ({
  id: i.id,
  number: i.number,
  subscriptionId: i.subscriptionId,
  customerId: i.customerId,
  customerEmail,
  status: i.status,
  currency: i.currency,
  subtotal: i.subtotal,
  discount: i.discount,
  tax: i.tax,
  totalExcludingTax: i.totalExcludingTax,
  amount: i.amount,
  totalTaxAmounts: i.totalTaxAmounts.map(toInvoiceTaxAmount),
  taxNote: i.taxNote ?? undefined,
  creditApplied: i.creditApplied,
  amountDue: i.amountDue,
  amountPaid: i.amountPaid,
  amountRefunded: i.amountRefunded,
  lines: lines.map((l) => ({
    type: l.type,
    description: l.description,
    quantity: String(l.quantity),
    unitAmount: l.unitAmount,
    amount: l.amount,
    periodStart: l.periodStart,
    periodEnd: l.periodEnd,
    taxRateIds: l.taxRateIds,
  })),
  periodStart: i.periodStart,
  periodEnd: i.periodEnd,
  dueDate: i.dueDate,
  paidAt: i.paidAt ?? undefined,
  attemptCount: i.attemptCount,
  nextPaymentAttempt: i.nextPaymentAttempt ?? undefined,
  livemode: i.livemode,
  createdAt: i.createdAt,
  seller: i.seller ? sellerMessage(i.seller) : undefined,
  buyer: i.buyer ? toBuyer(i.buyer) : undefined,
  amountCredited: creditNotes.reduce((total, note) => total + note.amount, 0),
  creditNotes,
  hostedInvoiceUrl: links.hostedInvoiceUrl,
  invoicePdf: links.invoicePdf,
});

export const toCreditNoteTax = (tax: RateAmount[]): billingV1.CreditNoteTax[] =>
  tax.map((t) => ({ taxRateId: t.taxRateId, amount: t.amount }));

/** `links`: where the note's PDF is (docs/api-behaviour.md §22). */
export const toCreditNote = (n: CreditNoteModel, links: DocumentLinks): billingV1.CreditNote => ({
  ...n.get({ plain: true }),
  creditNotePdf: links.creditNotePdf(n.id),
  tax: n.tax.map((t) => ({ taxRateId: t.tax_rate_id, amount: Number(t.amount) })),
  // Absent, not null, where a proto field is optional.
  refundId: n.refundId ?? undefined,
  balanceTransactionId: n.balanceTransactionId ?? undefined,
  memo: n.memo ?? undefined,
});

export const toSubscription = ({ subscription: s, customerEmail }: SubscriptionView): billingV1.Subscription => ({
  id: s.id,
  customerId: s.customerId,
  customerEmail,
  planId: s.planId,
  planName: s.planName,
  status: s.status,
  amount: s.amount,
  currency: s.currency,
  interval: s.interval,
  intervalCount: s.intervalCount,
  currentPeriodStart: s.currentPeriodStart,
  currentPeriodEnd: s.currentPeriodEnd,
  cancelledAt: s.cancelledAt ?? undefined,
  cancelAtPeriodEnd: s.cancelAtPeriodEnd,
  cancelledBy: s.cancelledBy ?? undefined,
  trialEnd: s.trialEnd ?? undefined,
  billingCycles: s.billingCycles ?? undefined,
  metadata: s.metadata,
  livemode: s.livemode,
  createdAt: s.createdAt,
  pendingPlanId: s.pendingPlanId ?? undefined,
  pendingPlanChangeAt: s.pendingPlanChangeAt ?? undefined,
  discount: toDiscount(discountOf(s)),
  taxRates: toSubscriptionTaxRates(s.taxRateIds),
});

export const toDiscount = (d: SubscriptionDiscount | null): billingV1.SubscriptionDiscount | undefined =>
  d
    ? {
        couponId: d.couponId,
        code: d.code,
        percentOff: d.percentOff ?? undefined,
        amountOff: d.amountOff ?? undefined,
        currency: d.currency ?? undefined,
        duration: d.duration,
        periodsRemaining: d.periodsRemaining ?? undefined,
      }
    : undefined;

/** The discount a request's coupon starts on a subscription billed in `currency`; none without one. */
export const requestedDiscount = (c: billingV1.CouponSnapshot | undefined, currency: string) => {
  const terms = couponTerms(c);
  return terms ? discountFromCoupon(terms, currency) : null;
};

/** A coupon snapshot from a request; absent -> undefined (no coupon). */
export const couponTerms = (c: billingV1.CouponSnapshot | undefined): CouponTerms | undefined =>
  c && {
    couponId: c.couponId,
    code: c.code,
    percentOff: c.percentOff,
    amountOff: c.amountOff,
    currency: c.currency,
    duration: c.duration,
    durationInPeriods: c.durationInPeriods,
  };

export const toRefund = (r: RefundView | null): billingV1.Refund | undefined =>
  r
    ? {
        id: r.id ?? '',
        amount: r.amount,
        currency: r.currency,
        status: r.status,
        policyId: r.policyId,
        invoiceId: r.invoiceId ?? '',
        subscriptionId: r.subscriptionId,
        livemode: r.livemode,
      }
    : undefined;
