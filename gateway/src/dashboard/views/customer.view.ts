import { html } from '@billing/platform';
import type { CustomerDetail, CustomerEmail, Invoice } from '../api-answers';
import { dashboardPage, day, facts, figure, money, status, table, when, type Frame } from './layout';

export interface CustomerView {
  detail: CustomerDetail;
  invoices: Invoice[];
  emails: CustomerEmail[];
}

/** One customer: GET /customers/{id} (details, balance, subscriptions), their invoices and emails. */
export function customerPage(frame: Frame, { detail, invoices, emails }: CustomerView): string {
  const { customer } = detail;
  const address = customer.address
    ? [
        customer.address.line1,
        customer.address.line2,
        customer.address.city,
        customer.address.state,
        customer.address.postal_code,
        customer.address.country,
      ]
        .filter(Boolean)
        .join(', ')
    : '';
  return dashboardPage(
    frame,
    `Customer ${customer.email}`,
    html`<p><a href="/dashboard/customers">All customers</a></p>
      <section aria-labelledby="details-heading">
        <h2 id="details-heading">Details</h2>
        ${facts([
          ['Email', customer.email],
          ['Name', customer.name ?? ''],
          ['Balance', customer.balance_currency ? money(customer.balance, customer.balance_currency) : 'None'],
          ['Address', address],
          ['Tax ID', customer.tax_id ?? ''],
          ['Tax status', customer.tax_exempt],
          ['Language', customer.preferred_locale],
          ['Created', when(customer.created_at)],
          ['ID', customer.id],
        ])}
      </section>
      <section aria-labelledby="subscriptions-heading">
        <h2 id="subscriptions-heading">Subscriptions</h2>
        ${table(
          'Subscriptions of this customer',
          ['Plan', 'Status', 'Price', 'Current period', 'Cancelled'],
          detail.subscriptions.map((s) => [
            html`${s.plan_name}`,
            status(s.status),
            figure(`${money(s.amount, s.currency)} ${s.interval}`),
            html`${day(s.current_period_start)} to ${day(s.current_period_end)}`,
            html`${day(s.cancelled_at)}`,
          ]),
        )}
      </section>
      <section aria-labelledby="invoices-heading">
        <h2 id="invoices-heading">Invoices</h2>
        ${table(
          'Invoices of this customer, newest first',
          ['Number', 'Status', 'Amount', 'Amount due', 'Created'],
          invoices.map((i) => [
            html`<a href="/dashboard/invoices/${i.id}">${i.number}</a>`,
            status(i.status),
            figure(money(i.amount, i.currency)),
            figure(money(i.amount_due, i.currency)),
            html`${day(i.created_at)}`,
          ]),
        )}
        <p><a href="/dashboard/invoices?customer_id=${customer.id}">All invoices of this customer</a></p>
      </section>
      <section aria-labelledby="emails-heading">
        <h2 id="emails-heading">Emails</h2>
        ${table(
          'Emails sent to this customer, newest first',
          ['Type', 'Subject', 'To', 'Status', 'Attempts', 'Sent'],
          emails.map((e) => [
            html`${e.type}`,
            html`${e.subject ?? ''}`,
            html`${e.to ?? ''}`,
            status(e.status),
            figure(String(e.attempts)),
            html`${when(e.sent_at)}`,
          ]),
        )}
      </section>`,
  );
}
