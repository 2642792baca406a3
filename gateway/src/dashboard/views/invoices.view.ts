import { html } from '@billing/platform';
import type { Invoice } from '../api-answers';
import { dashboardPage, day, figure, money, pager, select, status, table, type Frame } from './layout';

export const INVOICE_FILTERS = ['OPEN', 'PAID', 'VOID', 'UNCOLLECTIBLE', 'DRAFT'] as const;

export interface InvoicesView {
  status: string | undefined;
  customerId: string | undefined;
  invoices: Invoice[];
  limit: number;
  onFirstPage: boolean;
}

/** Invoices, newest first: GET /invoices?status= (and customer_id from a customer's page). */
export function invoicesPage(frame: Frame, view: InvoicesView): string {
  return dashboardPage(
    frame,
    'Invoices',
    html`<form method="get" action="/dashboard/invoices" class="filters">
        ${view.customerId ? html`<input type="hidden" name="customer_id" value="${view.customerId}" />` : ''}
        ${select(
          'invoice-status',
          'status',
          'Status',
          [['', 'Any status'], ...INVOICE_FILTERS.map((s): [string, string] => [s, s])],
          view.status,
        )}
        <button type="submit">Filter</button>
        ${view.customerId ? html`<a href="/dashboard/invoices">Every customer's invoices</a>` : ''}
      </form>
      ${table(
        view.customerId ? "One customer's invoices, newest first" : 'Invoices, newest first',
        ['Number', 'Customer', 'Status', 'Amount', 'Amount due', 'Created', 'Documents'],
        view.invoices.map((i) => [
          html`<a href="/dashboard/invoices/${i.id}">${i.number}</a>`,
          html`${i.customer_email}`,
          status(i.status),
          figure(money(i.amount, i.currency)),
          figure(money(i.amount_due, i.currency)),
          html`${day(i.created_at)}`,
          html`<a href="${i.hosted_invoice_url}">Hosted page<span class="visually-hidden"> of ${i.number}</span></a> ·
            <a href="${i.invoice_pdf}">PDF<span class="visually-hidden"> of ${i.number}</span></a>`,
        ]),
        'none match.',
      )}
      ${pager('/dashboard/invoices', { status: view.status, customer_id: view.customerId }, view.invoices, view.limit, view.onFirstPage)}`,
  );
}
