import { randomUUID } from 'node:crypto';
import type { Transaction } from 'sequelize';
import type { ProjectScope } from '@billing/platform';
import type { InvoiceModel, SubscriptionModel } from '../db/models';
import type { BillingDeps } from '../billing-deps';
import type { InvoiceTax } from '../domain/invoice-totals';
import { createInvoices, invoiceDiscountOf, planLineOf } from './invoice-money';

/** The ledger reference of a first charge: sub-first-<invoice id> (settle-first-charges reads it). */
export const FIRST_CHARGE_PREFIX = 'sub-first-';

/**
 * The first period's invoice, PAID by the charge that came before it (or free: nothing to
 * collect). Its money comes from createInvoices like every invoice's. `credit` is the customer's
 * balance the charge counted on: the card paid amount_due = amount - credit. A checkout's hosted
 * page charges the plan's full price before the customer is even known, so a checkout's first
 * invoice uses no balance (credit 0; docs/api-behaviour.md §20); a subscription created through
 * the API uses what its first charge left out (create-subscription.usecase.ts). `tax` is the one
 * the charge was computed with (docs/api-behaviour.md §21), so the invoice totals what was charged.
 */
export async function createFirstInvoice(
  deps: BillingDeps,
  scope: ProjectScope,
  subscription: SubscriptionModel,
  paid: {
    transactionReference: string | null;
    now: Date;
    transaction: Transaction;
    invoiceId?: string;
    credit: number;
    tax: InvoiceTax;
  },
): Promise<InvoiceModel> {
  const { now } = paid;
  const [{ invoice }] = await createInvoices(
    deps,
    [
      {
        id: paid.invoiceId ?? randomUUID(),
        projectId: scope.projectId,
        livemode: scope.livemode,
        subscriptionId: subscription.id,
        customerId: subscription.customerId,
        currency: subscription.currency,
        periodStart: subscription.currentPeriodStart,
        periodEnd: subscription.currentPeriodEnd,
        createdAt: now,
        collection: { status: 'PAID', transactionReference: paid.transactionReference },
        discount: invoiceDiscountOf(subscription),
        discountFrom: subscription,
        credit: { exactly: paid.credit },
        tax: paid.tax,
        lines: [
          planLineOf(subscription, { start: subscription.currentPeriodStart, end: subscription.currentPeriodEnd }),
        ],
      },
    ],
    paid.transaction,
  );
  return invoice;
}
