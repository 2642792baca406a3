import { html } from '@billing/platform';
import type { CreditNote, Invoice } from '../api-answers';
import {
  csrfField,
  dashboardPage,
  day,
  facts,
  figure,
  money,
  notice,
  select,
  status,
  table,
  when,
  type Frame,
} from './layout';

const REASONS: [string, string][] = [
  ['ORDER_CHANGE', 'Order change'],
  ['PRODUCT_UNSATISFACTORY', 'Product unsatisfactory'],
  ['DUPLICATE', 'Duplicate'],
  ['FRAUDULENT', 'Fraudulent'],
];

export interface InvoiceView {
  invoice: Invoice;
  /** GET /credit-notes?invoice_id=: the invoice's notes in full, newest first, with their PDFs. */
  creditNotes: CreditNote[];
  /** One per rendering of the form: pressing "Issue credit note" twice issues one (billing's Idempotency-Key). */
  formId: string;
  notice?: string;
}

/** One invoice as GET /invoices/{id} answers it, its documents' links, and the credit-note form (§23). */
export function invoicePage(frame: Frame, { invoice: i, creditNotes, formId, notice: done }: InvoiceView): string {
  const m = (amount: number) => money(amount, i.currency);
  /** A note's tax names its rate as the invoice does. */
  const rateName = (id: string) => i.total_tax_amounts.find((t) => t.tax_rate_id === id)?.display_name ?? 'Tax';
  const creditForm =
    i.status === 'PAID'
      ? html`<form method="post" action="/dashboard/invoices/${i.id}/credit-notes" class="stacked">
          ${csrfField(frame.csrfToken)}
          <input type="hidden" name="idempotency_key" value="${formId}" />
          <label for="credit-amount">Amount (${i.currency})</label>
          <input
            id="credit-amount"
            name="amount"
            type="text"
            inputmode="decimal"
            required
            aria-describedby="credit-amount-hint"
          />
          <p class="hint" id="credit-amount-hint">
            Tax included. This invoice totals ${m(i.amount)}, of which ${m(i.amount_credited)} is credited already.
          </p>
          ${select('credit-reason', 'reason', 'Reason', REASONS, 'ORDER_CHANGE')}
          <fieldset>
            <legend>Credit to</legend>
            <div class="radio">
              <input type="radio" id="refund-card" name="refund_to" value="CARD" checked />
              <label for="refund-card">The card (a refund)</label>
            </div>
            <div class="radio">
              <input type="radio" id="refund-balance" name="refund_to" value="BALANCE" />
              <label for="refund-balance">The customer's balance</label>
            </div>
          </fieldset>
          <label for="credit-memo">Memo (optional)</label>
          <textarea id="credit-memo" name="memo" maxlength="500" rows="2"></textarea>
          <button type="submit">Issue credit note</button>
        </form>`
      : html`<p>Credit notes are issued on PAID invoices; this one is ${i.status}.</p>`;
  return dashboardPage(
    frame,
    `Invoice ${i.number}`,
    html`${notice(done)}
      <p>
        <a href="/dashboard/invoices">All invoices</a> ·
        <a href="/dashboard/customers/${i.customer_id}">Customer ${i.customer_email}</a>
      </p>
      <p class="documents">
        <a href="${i.hosted_invoice_url}">Hosted invoice page</a> · <a href="${i.invoice_pdf}">Download PDF</a>
      </p>
      <section aria-labelledby="summary-heading">
        <h2 id="summary-heading">Summary</h2>
        ${facts([
          ['Status', status(i.status)],
          ['Customer', i.customer_email],
          ['Period', `${day(i.period_start)} to ${day(i.period_end)}`],
          ['Due', day(i.due_date)],
          ['Subtotal', m(i.subtotal)],
          ['Discount', i.discount ? m(i.discount) : ''],
          ...i.total_tax_amounts.map((t): [string, string] => [
            `${t.display_name} ${t.percentage} %${t.inclusive ? ' (included)' : ''}`,
            m(t.amount),
          ]),
          ['Total', m(i.amount)],
          ['Credit applied', i.credit_applied ? m(i.credit_applied) : ''],
          ['Amount due', m(i.amount_due)],
          ['Amount paid', m(i.amount_paid)],
          ['Amount refunded', i.amount_refunded ? m(i.amount_refunded) : ''],
          ['Amount credited', i.amount_credited ? m(i.amount_credited) : ''],
          ['Paid', when(i.paid_at)],
          ['Payment attempts', String(i.attempt_count)],
          ['Next attempt', when(i.next_payment_attempt)],
        ])}
      </section>
      <section aria-labelledby="lines-heading">
        <h2 id="lines-heading">Lines</h2>
        ${table(
          'Lines of this invoice',
          ['Type', 'Description', 'Quantity', 'Unit amount', 'Amount'],
          i.lines.map((l) => [
            html`${l.type}`,
            html`${l.description}`,
            figure(l.quantity),
            figure(m(l.unit_amount)),
            figure(m(l.amount)),
          ]),
        )}
      </section>
      <section aria-labelledby="credit-notes-heading">
        <h2 id="credit-notes-heading">Credit notes</h2>
        ${table(
          'Credit notes of this invoice, newest first',
          ['Number', 'Amount', 'Tax', 'Reason', 'Credited to', 'Memo', 'Issued', 'Document'],
          creditNotes.map((n) => [
            html`${n.number}`,
            figure(m(n.amount)),
            html`${n.tax.map((t) => html`<span class="figure">${rateName(t.tax_rate_id)} ${m(t.amount)}</span> `)}`,
            html`${n.reason}`,
            html`${n.refund_to === 'CARD' ? 'Card (refund)' : 'Balance'}`,
            html`${n.memo ?? ''}`,
            html`${when(n.created_at)}`,
            html`<a href="${n.credit_note_pdf}">PDF<span class="visually-hidden"> of ${n.number}</span></a>`,
          ]),
        )}
        <h3>Issue a credit note</h3>
        ${creditForm}
      </section>`,
  );
}
