import type { Transaction } from 'sequelize';
import type { RowScope } from '@billing/platform';
import {
  totalInvoice,
  type ChargeLineType,
  type InvoiceDiscount,
  type InvoiceTax,
  type InvoiceTotals,
} from '../domain/invoice-totals';
import { usableBalance } from '../domain/customer-balance';
import { discountAfterInvoice, discountOf, nextInvoiceDiscount } from '../domain/subscription-discount';
import type { InvoiceModel, SubscriptionModel } from '../db/models';
import type { StoredPlanChange } from '../domain/plan-change';
import type { NewInvoice, NewInvoiceLine } from '../db/repositories/invoice.repository';
import type { BillingDeps } from '../billing-deps';
import { invoicePartiesOf, type NewInvoiceParties } from './invoice-parties';

/** A line an invoice charges for (SUBSCRIPTION, USAGE, FEE, PRORATION); DISCOUNT is derived. */
export interface ChargeInvoiceLine extends NewInvoiceLine {
  type: ChargeLineType;
}

/**
 * A new invoice before its money: what it bills, not what it totals. createInvoices computes
 * subtotal, discount, tax, amount, credit_applied and amount_due from `lines`, `discount`, `tax`
 * and the customer's balance.
 */
export interface InvoiceDraft extends RowScope {
  id: string;
  subscriptionId: string;
  customerId: string;
  currency: string;
  periodStart: Date;
  periodEnd: Date;
  /** Business time: when the invoice is created and due (and paid, when `paid`). */
  createdAt: Date;
  /** In the order they are billed; createInvoices appends the DISCOUNT line. */
  lines: ChargeInvoiceLine[];
  /**
   * The subscription's discount on this invoice (docs/api-behaviour.md §19), or null. Period
   * invoices and first invoices take it from invoiceDiscountOf(subscription).
   */
  discount: InvoiceDiscount | null;
  /**
   * The subscription `discount` came from: when the invoice gets its DISCOUNT line, createInvoices
   * uses a period of that discount up (discountAfterInvoice), in the same transaction, on this
   * very instance, so the caller's view of the subscription shows what is left.
   */
  discountFrom?: SubscriptionModel;
  /**
   * The invoice's tax (docs/api-behaviour.md §21): its subscription's rates as they are now and its
   * customer's exemption, from invoiceTaxesOf (invoice-taxes.ts); kept on the invoice as they are.
   */
  tax: InvoiceTax;
  /**
   * OPEN: charged afterwards by claimInvoiceCharges (an amount_due of 0 is then PAID without a
   * provider call); `chargeAt` puts it on the scheduler's list. PAID: the caller already took its
   * amount_due from the card (a first charge), under `transactionReference` (null: nothing was
   * charged, the amount_due being 0).
   */
  collection: { status: 'OPEN'; chargeAt: Date | null } | { status: 'PAID'; transactionReference: string | null };
  /**
   * How much of the customer's balance the invoice uses: by default as much as the balance and
   * the invoice allow. `{ exactly: n }` when a charge was made before the invoice was created
   * and counted on n (the card paid amount - n): the invoice takes exactly n, and a balance that
   * no longer holds n refuses it (InsufficientBalanceError). `{ exactly: 0 }` uses none.
   */
  credit?: { exactly: number };
  /** The plan change the invoice pays for (a proration invoice, §18): applied when it is paid. */
  planChange?: StoredPlanChange | null;
}

/** A stored invoice and the money it came to. */
export interface PricedInvoice {
  invoice: InvoiceModel;
  totals: InvoiceTotals;
}

/**
 * The discount of a subscription's next invoice (docs/api-behaviour.md §19): the one place a
 * subscription's invoices learn their discount, from the terms billing keeps on the subscription.
 */
export function invoiceDiscountOf(subscription: SubscriptionModel): InvoiceDiscount | null {
  return nextInvoiceDiscount(discountOf(subscription));
}

/** The SUBSCRIPTION line of a subscription's invoice for a period: its plan, once, at its amount. */
export function planLineOf(subscription: SubscriptionModel, period: { start: Date; end: Date }): ChargeInvoiceLine {
  return {
    type: 'SUBSCRIPTION',
    description: subscription.planName,
    quantity: '1',
    unitAmount: subscription.amount,
    amount: subscription.amount,
    periodStart: period.start,
    periodEnd: period.end,
  };
}

/**
 * Creates new invoices with their money, in the caller's transaction: the one place every new
 * invoice's totals are computed and applied (docs/api-behaviour.md §11, §18, §19, §20), whatever
 * creates it (renewals, alone or in a batch, resume, first invoices, proration invoices):
 *  1. the balances above 0 of the drafts' customers, in one query, locked (so the credit counted
 *     on is still there at step 4; customers without credit are not locked); an invoice uses a
 *     balance only in the balance's own currency, and only for a subscription that may spend it
 *     (not one a payer created by typing an existing customer's e-mail, §20);
 *  2. per draft, in order (two invoices of one customer share its balance), totalInvoice: the
 *     discount on the SUBSCRIPTION, USAGE and positive PRORATION lines, then the tax of its rates
 *     (§21), then the balance, then what is due; a DISCOUNT line (negative) when the discount is
 *     above 0; every line names the rates that applied to it;
 *  3. the invoices with their lines, numbered (InvoiceRepository.createMany), each keeping its
 *     seller and buyer as they are now (§22, invoicePartiesOf: one query for the whole batch);
 *  4. the balance changes through the ledger (CustomerBalanceRepository.change), only for
 *     invoices that move it: APPLIED_TO_INVOICE (-credit_applied), and PRORATION_CREDIT
 *     (+credit_to_balance) for an invoice totalling below 0 (a downgrade's proration, §18).
 *     Callers never write either for an invoice themselves;
 *  5. the discount of each subscription whose invoice got a DISCOUNT line is used up by one
 *     period (`discountFrom`, §19: ONCE ends, REPEATING counts down, FOREVER stays). An invoice
 *     without the line (nothing to discount) uses nothing up.
 * Returns the invoices in input order with their totals. Records no event: invoice.created (and
 * invoice.paid for a PAID one) are the caller's, which knows the e-mail and the moment.
 */
export async function createInvoices(
  deps: BillingDeps,
  drafts: InvoiceDraft[],
  transaction: Transaction,
): Promise<PricedInvoice[]> {
  if (drafts.length === 0) return [];
  const parties = await invoicePartiesOf(
    deps,
    drafts.map((d) => d.customerId),
    transaction,
  );
  const balances = await deps.balances.lockPositiveBalances([...new Set(drafts.map((d) => d.customerId))], transaction);
  const spenders = balances.size
    ? await deps.subscriptions.balanceUsers([...new Set(drafts.map((d) => d.subscriptionId))], transaction)
    : new Set<string>();
  const priced = drafts.map((draft) => {
    const balance = balances.get(draft.customerId) ?? { amount: 0, currency: null };
    // An exact credit is taken as asked: the ledger refuses it if the balance no longer holds it.
    const usable = draft.credit
      ? draft.credit.exactly
      : usableBalance(balance, { currency: draft.currency, usesCustomerBalance: spenders.has(draft.subscriptionId) });
    const totals = totalInvoice(draft.lines, draft.discount, draft.tax, usable);
    balances.set(draft.customerId, { ...balance, amount: balance.amount - totals.creditApplied });
    return { draft, totals, invoice: storedInvoice(draft, totals, parties.get(draft.customerId)!) };
  });
  const invoices = await deps.invoices.createMany(
    priced.map((p) => p.invoice),
    transaction,
  );
  for (const [k, { draft, totals }] of priced.entries()) {
    const { number } = invoices[k];
    const change = { customerId: draft.customerId, invoiceId: draft.id, at: draft.createdAt, currency: draft.currency };
    if (totals.creditApplied > 0) {
      await deps.balances.change(
        {
          ...change,
          type: 'APPLIED_TO_INVOICE',
          amount: -totals.creditApplied,
          description: `Applied to invoice ${number}`,
        },
        transaction,
      );
    }
    if (totals.creditToBalance > 0) {
      await deps.balances.change(
        {
          ...change,
          type: 'PRORATION_CREDIT',
          amount: totals.creditToBalance,
          description: `Proration credit of invoice ${number}`,
        },
        transaction,
      );
    }
  }
  for (const { draft, totals } of priced) {
    const subscription = draft.discountFrom;
    if (!subscription || totals.discount === 0) continue;
    const left = discountAfterInvoice(discountOf(subscription), true);
    await deps.subscriptions.setDiscount(subscription, left, draft.createdAt, transaction);
  }
  return invoices.map((invoice, k) => ({ invoice, totals: priced[k].totals }));
}

/** The row createMany stores for a draft, its totals and its parties. */
function storedInvoice(draft: InvoiceDraft, totals: InvoiceTotals, parties: NewInvoiceParties): NewInvoice & RowScope {
  const { collection, discount, tax, credit: _credit, discountFrom: _from, lines, ...fields } = draft;
  const paid = collection.status === 'PAID';
  return {
    ...fields,
    ...parties,
    status: collection.status,
    subtotal: totals.subtotal,
    discount: totals.discount,
    tax: totals.tax,
    totalExcludingTax: totals.totalExcludingTax,
    amount: totals.amount,
    totalTaxAmounts: totals.taxAmounts,
    taxNote: totals.taxNote,
    creditApplied: totals.creditApplied,
    amountDue: totals.amountDue,
    // What the card paid: the credit is not part of it (nor refunded on cancellation, §10).
    amountPaid: paid ? totals.amountDue : 0,
    dueDate: draft.createdAt,
    paidAt: paid ? draft.createdAt : null,
    attemptCount: paid ? 1 : 0,
    nextPaymentAttempt: collection.status === 'OPEN' ? collection.chargeAt : null,
    transactionReference: paid ? collection.transactionReference : null,
    lines: taxedLines(
      [...lines, ...discountLines(discount, totals, { start: draft.periodStart, end: draft.periodEnd })],
      tax,
    ),
  };
}

/**
 * The lines of an invoice, each naming the rates that applied to it (docs/api-behaviour.md §21):
 * the invoice's, on every line, the DISCOUNT line too (the tax is on what is left after it).
 */
export function taxedLines(lines: NewInvoiceLine[], tax: InvoiceTax): NewInvoiceLine[] {
  const taxRateIds = tax.rates.map((rate) => rate.taxRateId);
  return lines.map((line) => ({ ...line, taxRateIds }));
}

/**
 * The DISCOUNT line (negative) of an invoice with these totals (docs/api-behaviour.md §19), or
 * none: what createInvoices appends to the lines, and what a plan-change preview shows.
 */
export function discountLines(
  discount: InvoiceDiscount | null,
  totals: InvoiceTotals,
  period: { start: Date; end: Date },
): NewInvoiceLine[] {
  if (totals.discount <= 0) return [];
  return [
    {
      type: 'DISCOUNT',
      description: discount?.description ?? 'Discount',
      quantity: '1',
      unitAmount: -totals.discount,
      amount: -totals.discount,
      periodStart: period.start,
      periodEnd: period.end,
    },
  ];
}
