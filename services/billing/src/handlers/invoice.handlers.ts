import { requireScope } from '@billing/platform';
import type { BillingDeps } from '../billing-deps';
import { getInvoice } from '../usecases/invoices/get-invoice.usecase';
import { listInvoices } from '../usecases/invoices/list-invoices.usecase';
import { payInvoice } from '../usecases/invoices/pay-invoice.usecase';
import { voidInvoice } from '../usecases/invoices/void-invoice.usecase';
import { toInvoice, type BillingHandlers } from './billing-messages';

/** Invoices (docs/api-behaviour.md §11). Thin: proto request -> use case -> proto response. */
export function invoiceHandlers(deps: BillingDeps): Partial<BillingHandlers> {
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
  };
}
