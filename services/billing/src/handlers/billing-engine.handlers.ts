import { DomainError, requireScope, type UnaryHandlers } from '@billing/platform';
import type { billingV1 } from '@billing/proto';
import type { BillingDeps } from '../billing-deps';
import { advanceTestClock, getTestClock } from '../usecases/test-clocks/advance-test-clock.usecase';
import { getInvoice } from '../usecases/invoices/get-invoice.usecase';
import type { InvoiceView } from '../read-models/invoice.read-model';
import { listInvoices } from '../usecases/invoices/list-invoices.usecase';
import { payInvoice } from '../usecases/invoices/pay-invoice.usecase';
import { setCardBehavior } from '../usecases/customers/set-card-behavior.usecase';
import { voidInvoice } from '../usecases/invoices/void-invoice.usecase';

type BillingHandlers = UnaryHandlers<billingV1.BillingServiceServer>;

const DEFAULT_SETTLE_AFTER_MS = 30_000;

export const toInvoice = ({ invoice: i, lines, customerEmail }: InvoiceView): billingV1.Invoice => ({
  id: i.id,
  number: i.number,
  subscriptionId: i.subscriptionId,
  customerId: i.customerId,
  customerEmail,
  status: i.status,
  currency: i.currency,
  subtotal: i.subtotal,
  discount: i.discount,
  amount: i.amount,
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
  })),
  periodStart: i.periodStart,
  periodEnd: i.periodEnd,
  dueDate: i.dueDate,
  paidAt: i.paidAt ?? undefined,
  attemptCount: i.attemptCount,
  nextPaymentAttempt: i.nextPaymentAttempt ?? undefined,
  livemode: i.livemode,
  createdAt: i.createdAt,
});

/** Invoices (docs/api-behaviour.md §11), test clocks (13) and test helpers (16.2). Thin handlers. */
export function billingEngineHandlers(deps: BillingDeps): Partial<BillingHandlers> {
  return {
    async listInvoices(req) {
      const views = await listInvoices(
        deps,
        requireScope(req.scope),
        { limit: req.page?.limit, startingAfter: req.page?.startingAfter || undefined },
        { status: req.status, customerId: req.customerId, subscriptionId: req.subscriptionId },
      );
      return { invoices: views.map(toInvoice) };
    },
    async getInvoice(req) {
      return { invoice: toInvoice(await getInvoice(deps, requireScope(req.scope), req.invoiceId)) };
    },
    async payInvoice(req) {
      const invoice = await payInvoice(deps, requireScope(req.scope), req.invoiceId, req.idempotencyKey || undefined);
      return { invoice: toInvoice(invoice) };
    },
    async voidInvoice(req) {
      return { invoice: toInvoice(await voidInvoice(deps, requireScope(req.scope), req.invoiceId)) };
    },
    async advanceTestClock(req) {
      if (!req.to) throw DomainError.invalid([{ loc: ['body', 'to'], msg: 'Field required', type: 'missing' }]);
      const now = await advanceTestClock(
        deps,
        requireScope(req.scope),
        req.to,
        deps.paymentSettleAfterMs ?? DEFAULT_SETTLE_AFTER_MS,
      );
      return { now };
    },
    async getTestClock(req) {
      return { now: await getTestClock(deps, requireScope(req.scope)) };
    },
    async setCardBehavior(req) {
      const behavior = await setCardBehavior(deps, requireScope(req.scope), req.customerId, req.behavior);
      return { customerId: req.customerId, behavior };
    },
  };
}
