import { escapeHtml, formatMoney, type Currency } from '@billing/platform';
import type { billingV1 } from '@billing/proto';
import type { BillingDetails } from '../domain/billing-details';
import type { CancellationReview } from '../usecases/portal/review-cancellation.usecase';
import type { PlanChangeReview } from '../usecases/portal/review-plan-change.usecase';
import type { PortalView, SubscriptionView } from '../usecases/portal/show-portal.usecase';

const STYLE = `
  *{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;
  background:#f4f5f7;color:#1a1d23}main{max-width:52rem;margin:0 auto;padding:1.5rem 1rem}
  .card{background:#fff;border-radius:12px;padding:1.5rem;box-shadow:0 1px 3px rgba(0,0,0,.12);margin-bottom:1rem}
  h1{font-size:1.6rem;margin:0 0 .25rem}h2{font-size:1.2rem;margin:0 0 .75rem}h3{font-size:1.05rem;margin:0 0 .5rem}
  .headline{color:#3d434d;margin:0 0 1rem}dl{margin:0}dl div{display:flex;justify-content:space-between;gap:1rem;
  padding:.2rem 0}dt{color:#3d434d}dd{margin:0;text-align:right}table{width:100%;border-collapse:collapse}
  th,td{padding:.4rem .3rem;border-bottom:1px solid #d5d9e0;text-align:left;vertical-align:top}
  .figure{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
  .subscription{border-top:1px solid #d5d9e0;padding-top:1rem;margin-top:1rem}.subscription:first-of-type{border:0;margin:0;padding:0}
  .actions{display:flex;gap:.75rem;align-items:flex-end;flex-wrap:wrap;margin-top:1rem}form{margin:0}
  button{padding:.6rem 1.4rem;font-size:1rem;font-weight:700;border:0;border-radius:8px;cursor:pointer;
  background:#1b5fd9;color:#fff}button.secondary{background:#e8ebf0;color:#1a1d23}button.danger{background:#b3261e}
  a{color:#1b4fb3}button:focus-visible,a:focus-visible,input:focus-visible{outline:3px solid #f0a500;outline-offset:2px}
  fieldset{border:1px solid #d5d9e0;border-radius:8px;padding:.5rem 1rem;margin:0}legend{font-weight:700}
  label{display:block;font-weight:600;margin:.5rem 0 .2rem}input[type=text],input[type=email]{width:100%;
  padding:.5rem;font-size:1rem;border:1px solid #6b7280;border-radius:6px}.radio label{display:inline;font-weight:400}
  .grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(14rem,1fr));gap:0 1rem}
  .notice{background:#e8f5ee;color:#0a4d2c;border:1px solid #a9d8bd;border-radius:8px;padding:.75rem}
  .notice.problem{background:#fdecec;color:#8a1414;border-color:#f3b4b4}.muted{color:#4b5260}`;

/** A portal page: English, no script, nothing from elsewhere. */
export function portalPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body><main>${body}</main></body>
</html>`;
}

/** A page that names no customer: the expired link, a refusal, a failure. */
export const messagePage = (title: string, text: string, backToPortal = false) =>
  portalPage(
    title,
    `<div class="card"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>${
      backToPortal ? '<p><a href="/portal">Back to your account</a></p>' : ''
    }</div>`,
  );

export const money = (minor: number, currency: string) => formatMoney(minor, currency as Currency, 'en');

export const day = (date: Date | undefined) =>
  date
    ? new Intl.DateTimeFormat('en', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' }).format(date)
    : '';

const rows = (pairs: [string, string][]) =>
  pairs
    .filter(([, value]) => value !== '')
    .map(([label, value]) => `<div><dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd></div>`)
    .join('');

const hidden = (name: string, value: string) =>
  `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;

/** A form of one button, posting with the session's CSRF token. */
const buttonForm = (action: string, label: string, csrfToken: string, extra = '', buttonClass = '') =>
  `<form method="post" action="${escapeHtml(action)}">${hidden('csrf_token', csrfToken)}${extra}<button type="submit"${
    buttonClass ? ` class="${buttonClass}"` : ''
  }>${escapeHtml(label)}</button></form>`;

const STATUS_WORDS: Record<string, string> = {
  ACTIVE: 'Active',
  TRIALING: 'Trial',
  PAST_DUE: 'Past due',
  PAUSED: 'Paused',
  CANCELLED: 'Cancelled',
  EXPIRED: 'Ended',
  INCOMPLETE: 'Incomplete',
};

const PERIODS: Record<string, string> = {
  daily: 'day',
  weekly: 'week',
  monthly: 'month',
  quarterly: 'quarter',
  biannually: 'half-year',
  annually: 'year',
};

/** "every month", "every 3 months": how often a subscription renews (§4's intervals). */
export function periodWords(interval: string, count: number): string {
  const unit = PERIODS[interval.toLowerCase()] ?? interval.toLowerCase();
  return count > 1 ? `every ${count} ${unit}s` : `every ${unit}`;
}

const LIVE = new Set(['ACTIVE', 'TRIALING', 'PAST_DUE', 'PAUSED']);

function subscriptionSection(view: PortalView, item: SubscriptionView): string {
  const s = item.subscription;
  const { settings } = view;
  const facts: [string, string][] = [
    ['Status', STATUS_WORDS[s.status] ?? s.status],
    [
      'Price',
      item.renewal
        ? `${money(item.renewal.amount, item.renewal.currency)} ${periodWords(s.interval, s.intervalCount)}`
        : '',
    ],
    [
      'Next renewal',
      item.renewal ? `${day(item.renewal.date)}, ${money(item.renewal.amount, item.renewal.currency)}` : '',
    ],
    ['Trial ends', s.status === 'TRIALING' ? day(s.trialEnd) : ''],
    ['Plan change', item.pendingPlanName ? `to ${item.pendingPlanName} on ${day(s.pendingPlanChangeAt)}` : ''],
    [
      'Cancellation',
      s.cancelAtPeriodEnd
        ? `Cancels on ${day(s.currentPeriodEnd)}`
        : s.cancelledAt
          ? `Cancelled on ${day(s.cancelledAt)}`
          : '',
    ],
  ];
  const actions: string[] = [];
  const base = `/portal/subscriptions/${encodeURIComponent(s.id)}`;
  const otherPlans = view.plans.filter((plan) => plan.id !== s.planId && plan.currency === s.currency);
  if (otherPlans.length > 0 && (s.status === 'ACTIVE' || s.status === 'TRIALING')) {
    const choices = otherPlans
      .map(
        (plan, index) =>
          `<div class="radio"><input type="radio" id="plan-${escapeHtml(s.id)}-${index}" name="plan_id" value="${escapeHtml(plan.id)}"${
            index === 0 ? ' checked' : ''
          }> <label for="plan-${escapeHtml(s.id)}-${index}">${escapeHtml(plan.name)} (${escapeHtml(`${money(plan.amount, plan.currency)} ${periodWords(plan.interval, plan.intervalCount)}`)} before tax)</label></div>`,
      )
      .join('');
    actions.push(
      buttonForm(
        `${base}/change-plan`,
        'Change plan',
        view.csrfToken,
        `<fieldset><legend>Plans</legend>${choices}</fieldset>`,
      ),
    );
  }
  if (settings.paymentMethodUpdate && LIVE.has(s.status)) {
    actions.push(buttonForm('/portal/card/review', 'Update card', view.csrfToken, hidden('subscription_id', s.id)));
  }
  if (settings.cancellation !== 'NONE' && LIVE.has(s.status) && !s.cancelAtPeriodEnd) {
    actions.push(buttonForm(`${base}/cancel`, 'Cancel subscription', view.csrfToken, '', 'danger'));
  }
  return `<section class="subscription" aria-labelledby="sub-${escapeHtml(s.id)}">
<h3 id="sub-${escapeHtml(s.id)}">${escapeHtml(s.planName)}</h3>
<dl>${rows(facts)}</dl>
${actions.length ? `<div class="actions">${actions.join('')}</div>` : ''}
</section>`;
}

function invoicesTable(invoices: billingV1.Invoice[]): string {
  if (invoices.length === 0) return '<p class="muted">No invoices yet.</p>';
  const body = invoices
    .map(
      (invoice) => `<tr><td>${escapeHtml(invoice.number)}</td><td>${escapeHtml(day(invoice.createdAt))}</td>
<td class="figure">${escapeHtml(money(invoice.amount, invoice.currency))}</td><td>${escapeHtml(invoice.status)}</td>
<td><a href="${escapeHtml(invoice.hostedInvoiceUrl)}">View invoice ${escapeHtml(invoice.number)}</a></td>
<td><a href="${escapeHtml(invoice.invoicePdf)}">Download PDF of ${escapeHtml(invoice.number)}</a></td></tr>`,
    )
    .join('');
  return `<table><thead><tr><th scope="col">Number</th><th scope="col">Date</th><th scope="col" class="figure">Amount</th>
<th scope="col">Status</th><th scope="col">Page</th><th scope="col">PDF</th></tr></thead><tbody>${body}</tbody></table>`;
}

const input = (name: string, label: string, value: string | undefined, type = 'text') =>
  `<div><label for="${name}">${escapeHtml(label)}</label><input type="${type}" id="${name}" name="${name}" value="${escapeHtml(value ?? '')}"></div>`;

function billingDetailsSection(view: PortalView): string {
  const c = view.customer;
  const address = c.address;
  const shown = rows([
    ['Name', c.name ?? ''],
    ['Email', c.email],
    [
      'Address',
      address
        ? [address.line1, address.line2, address.city, address.state, address.postalCode, address.country]
            .filter(Boolean)
            .join(', ')
        : '',
    ],
    ['Tax ID', c.taxId ?? ''],
  ]);
  if (!view.settings.billingDetailsUpdate) return `<dl>${shown}</dl>`;
  return `<dl>${shown}</dl>
<form method="post" action="/portal/billing-details">${hidden('csrf_token', view.csrfToken)}
<div class="grid">${input('name', 'Name', c.name)}${input('tax_id', 'Tax ID', c.taxId)}
${input('line1', 'Address line 1', address?.line1)}${input('line2', 'Address line 2', address?.line2)}
${input('city', 'City', address?.city)}${input('state', 'State or region', address?.state)}
${input('postal_code', 'Postal code', address?.postalCode)}${input('country', 'Country (2-letter code)', address?.country)}</div>
<div class="actions"><button type="submit">Update billing details</button></div></form>`;
}

const NOTICES: Record<string, { text: string; problem?: boolean }> = {
  cancelled: { text: 'Your subscription is cancelled.' },
  cancel_scheduled: { text: 'Your subscription will end with its current period.' },
  plan_changed: { text: 'Your plan is changed.' },
  details_updated: { text: 'Your billing details are updated.' },
  card_updated: { text: 'Your card is updated.' },
  card_not_updated: { text: 'Your card was not updated.', problem: true },
  card_pending: { text: 'Your card update is being confirmed by the payment provider.' },
};

/** The portal home (docs/api-behaviour.md §24). */
export function homePage(view: PortalView, notice: string | null, canReturn: boolean): string {
  const known = notice ? NOTICES[notice] : undefined;
  const c = view.customer;
  const card = view.card
    ? `<dl>${rows([
        ['Card', `${view.card.brand ? `${view.card.brand.toUpperCase()} ` : ''}ending in ${view.card.last4}`],
        ['Expires', view.card.expMonth && view.card.expYear ? `${view.card.expMonth}/${view.card.expYear}` : ''],
      ])}</dl>`
    : '<p class="muted">No card on file.</p>';
  const balance = c.balance > 0 && c.balanceCurrency ? money(c.balance, c.balanceCurrency) : 'None';
  return portalPage(
    `${view.sellerName}: your account`,
    `<div class="card"><h1>${escapeHtml(view.sellerName)}</h1>${
      view.settings.headline ? `<p class="headline">${escapeHtml(view.settings.headline)}</p>` : ''
    }<p class="muted">Signed in as ${escapeHtml(c.email)}</p>
${known ? `<p role="status" class="notice${known.problem ? ' problem' : ''}">${escapeHtml(known.text)}</p>` : ''}
${canReturn ? `<div class="actions">${buttonForm('/portal/return', 'Return', view.csrfToken, '', 'secondary')}</div>` : ''}</div>
<section class="card" aria-labelledby="subscriptions"><h2 id="subscriptions">Subscriptions</h2>${
      view.subscriptions.length
        ? view.subscriptions.map((item) => subscriptionSection(view, item)).join('')
        : '<p class="muted">No subscriptions.</p>'
    }</section>
<section class="card" aria-labelledby="payment"><h2 id="payment">Payment method</h2>${card}</section>
<section class="card" aria-labelledby="balance"><h2 id="balance">Credit balance</h2><p>${escapeHtml(balance)}</p></section>
<section class="card" aria-labelledby="invoices"><h2 id="invoices">Invoices</h2>${invoicesTable(view.invoices)}</section>
<section class="card" aria-labelledby="details"><h2 id="details">Billing details</h2>${billingDetailsSection(view)}</section>`,
  );
}

/** A confirmation: what the action will do, "Confirm" and a way back. */
function confirmationPage(
  title: string,
  facts: string,
  action: string,
  csrfToken: string,
  fields: Record<string, string>,
) {
  const extra = Object.entries(fields)
    .map(([name, value]) => hidden(name, value))
    .join('');
  return portalPage(
    title,
    `<div class="card"><h1>${escapeHtml(title)}</h1>${facts}
<div class="actions">${buttonForm(action, 'Confirm', csrfToken, extra)}<a href="/portal">Go back without changing anything</a></div></div>`,
  );
}

export function cancellationReviewPage(review: CancellationReview, csrfToken: string, confirmationId: string): string {
  const s = review.subscription;
  const refund = review.refund;
  const facts = rows([
    ['Subscription', s.planName],
    ['Ends', review.atPeriodEnd ? `At the end of the current period, ${day(s.currentPeriodEnd)}` : 'Now'],
    [
      'Refund',
      refund
        ? money(refund.amount, refund.currency)
        : review.atPeriodEnd
          ? 'None (it runs until the period ends)'
          : 'None',
    ],
  ]);
  return confirmationPage(
    'Cancel subscription',
    `<dl>${facts}</dl>`,
    `/portal/subscriptions/${encodeURIComponent(s.id)}/cancel/confirm`,
    csrfToken,
    { confirmation_id: confirmationId },
  );
}

export function planChangeReviewPage(review: PlanChangeReview, csrfToken: string, confirmationId: string): string {
  const p = review.preview;
  const lines = p.lines
    .map(
      (line) =>
        `<tr><td>${escapeHtml(line.description)}</td><td class="figure">${escapeHtml(money(line.amount, p.currency))}</td></tr>`,
    )
    .join('');
  const totals = rows([
    ['Subtotal', money(p.subtotal, p.currency)],
    ['Discount', p.discount ? money(-p.discount, p.currency) : ''],
    ['Tax', p.tax ? money(p.tax, p.currency) : ''],
    ['Total', money(p.amount, p.currency)],
    ['Credit applied', p.creditApplied ? money(-p.creditApplied, p.currency) : ''],
    ['Charged to your card now', money(p.amountDue, p.currency)],
    ['Added to your credit balance', p.creditToBalance ? money(p.creditToBalance, p.currency) : ''],
  ]);
  return confirmationPage(
    'Change plan',
    `<dl>${rows([
      ['From', review.subscription.planName],
      ['To', review.plan.name],
    ])}</dl>${
      lines
        ? `<table><thead><tr><th scope="col">Item</th><th scope="col" class="figure">Amount</th></tr></thead><tbody>${lines}</tbody></table>`
        : '<p>Nothing is charged now; the new price applies from the next renewal.</p>'
    }<dl>${totals}</dl>`,
    `/portal/subscriptions/${encodeURIComponent(review.subscription.id)}/change-plan/confirm`,
    csrfToken,
    { plan_id: review.plan.id, confirmation_id: confirmationId },
  );
}

export function billingDetailsReviewPage(
  details: BillingDetails,
  form: Record<string, string>,
  csrfToken: string,
): string {
  const a = details.address;
  return confirmationPage(
    'Update billing details',
    `<dl>${rows([
      ['Name', details.name ?? '(unchanged)'],
      [
        'Address',
        a ? [a.line1, a.line2, a.city, a.state, a.postalCode, a.country].filter(Boolean).join(', ') : '(none)',
      ],
      ['Tax ID', details.taxId ?? '(none)'],
    ])}</dl>`,
    '/portal/billing-details/confirm',
    csrfToken,
    form,
  );
}

export function cardReviewPage(subscription: billingV1.Subscription, csrfToken: string): string {
  return confirmationPage(
    'Update card',
    `<dl>${rows([['Subscription', subscription.planName]])}</dl><p>You will go to the payment provider's page to authorize a new card. The renewals of this subscription, and any retry of its unpaid invoices, then charge it.</p>`,
    '/portal/card',
    csrfToken,
    { subscription_id: subscription.id },
  );
}
