import { html } from '@billing/platform';
import type { Customer } from '../api-answers';
import { dashboardPage, day, figure, money, pager, table, type Frame } from './layout';

export interface CustomersView {
  email: string | undefined;
  customers: Customer[];
  limit: number;
  onFirstPage: boolean;
}

/** Customers, newest first; the search is GET /customers?email= (an exact address, any letter case). */
export function customersPage(frame: Frame, view: CustomersView): string {
  return dashboardPage(
    frame,
    'Customers',
    html`<form method="get" action="/dashboard/customers" class="filters" role="search">
        <label for="customer-email">Email address</label>
        <input id="customer-email" name="email" type="search" value="${view.email ?? ''}" autocomplete="off" />
        <button type="submit">Search</button>
        ${view.email ? html`<a href="/dashboard/customers">Show all</a>` : ''}
      </form>
      <p class="hint">The search finds the customer with exactly this address, in any letter case.</p>
      ${table(
        view.email ? `Customers with the email ${view.email}` : 'Customers, newest first',
        ['Email', 'Name', 'Balance', 'Created'],
        view.customers.map((c) => [
          html`<a href="/dashboard/customers/${c.id}">${c.email}</a>`,
          html`${c.name ?? ''}`,
          figure(c.balance_currency ? money(c.balance, c.balance_currency) : ''),
          html`${day(c.created_at)}`,
        ]),
        view.email ? 'no customer has this address.' : 'none yet.',
      )}
      ${pager('/dashboard/customers', { email: view.email }, view.customers, view.limit, view.onFirstPage)}`,
  );
}
