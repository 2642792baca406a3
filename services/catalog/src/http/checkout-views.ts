import { escapeHtml, toMajorUnits, type TaxAmountFigures } from '@billing/platform';
import type { CheckoutQuote } from '../domain/checkout-session';
import type { CouponSnapshot } from '../domain/coupon-rules';

export interface PlanView {
  name: string;
  description: string;
  amount: number;
  currency: string;
  interval: string;
  intervalCount: number;
  trialPeriodDays: number;
}

const UNIT: Record<string, [string, number]> = {
  daily: ['day', 1],
  weekly: ['week', 1],
  monthly: ['month', 1],
  quarterly: ['month', 3],
  biannually: ['month', 6],
  annually: ['year', 1],
};

export function formatMoney(minor: number, currency: string): string {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).format(toMajorUnits(minor));
}

/** "every month", "every 3 months", "every 2 years". */
export function formatInterval(interval: string, count: number): string {
  const [unit, factor] = UNIT[interval] ?? [interval, 1];
  const n = factor * count;
  return n === 1 ? `every ${unit}` : `every ${n} ${unit}s`;
}

const STYLE = `
  *{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;
  background:#f4f5f7;color:#1a1d23}main{max-width:28rem;margin:0 auto;padding:1.5rem 1rem}
  .card{background:#fff;border-radius:12px;padding:1.5rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}
  h1{font-size:1.35rem;margin:0 0 .25rem}.price{font-size:1.75rem;font-weight:700;margin:.75rem 0 0}
  .seller{margin:0 0 .25rem;font-weight:600;color:#5b6270}
  .muted{color:#5b6270}.trial{color:#0a6b3d;font-weight:600}label{display:block;font-weight:600;margin:1rem 0 .25rem}
  input{width:100%;padding:.75rem;font-size:1rem;border:1px solid #b8bdc7;border-radius:8px}
  input[readonly]{background:#eef0f3}button{width:100%;padding:.9rem;font-size:1.05rem;font-weight:700;border:0;
  border-radius:8px;margin-top:1.25rem;cursor:pointer}button.pay{background:#1b5fd9;color:#fff}
  button.cancel{background:transparent;color:#5b6270;text-decoration:underline;margin-top:.5rem}
  .error{background:#fdecec;color:#8a1414;border:1px solid #f3b4b4;border-radius:8px;padding:.75rem;margin:1rem 0 0}
  .notice{background:#e8f5ee;color:#0a4d2c;border:1px solid #a9d8bd;border-radius:8px;padding:.75rem;margin:1rem 0 0}
  .summary{margin:1rem 0 0}.summary div{display:flex;justify-content:space-between;gap:1rem;padding:.25rem 0}
  .summary dd{margin:0;font-variant-numeric:tabular-nums}.summary .total{border-top:1px solid #d5d9e0;font-weight:700}
  .promo{display:flex;gap:.5rem}.promo input{flex:1}button.apply{width:auto;margin-top:0;padding:.75rem 1rem;
  background:#eef0f3;color:#1a1d23;font-size:1rem}
  a{color:#1b5fd9}`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body><main><div class="card">${body}</div></main></body>
</html>`;
}

export interface CheckoutPageModel {
  code: string;
  plan: PlanView;
  /** Billing's quote of the first invoice, kept on the session (docs/api-behaviour.md §21). */
  quote: CheckoutQuote;
  /** The seller's name kept with the session (§22); null (an older session): no seller line. */
  sellerName: string | null;
  coupon: CouponSnapshot | null;
  /** Show the "Promotion code" field. */
  promotionCodes: boolean;
  promotionCode: string;
  email: string | null;
  name: string | null;
  emailLocked: boolean;
  error?: string;
  /** A confirmation (a promotion code applied). */
  notice?: string;
}

/** "25% off", "₦2,000.00 off", with how long: "for 3 payments", "on every payment". */
export function describeDiscount(coupon: CouponSnapshot, currency: string): string {
  const off =
    coupon.percentOff !== null ? `${coupon.percentOff}% off` : `${formatMoney(coupon.amountOff ?? 0, currency)} off`;
  const how =
    coupon.duration === 'ONCE'
      ? 'the first payment'
      : coupon.duration === 'FOREVER'
        ? 'every payment'
        : `the first ${coupon.durationInPeriods} payments`;
  return `${coupon.code}: ${off} ${coupon.duration === 'FOREVER' ? 'on' : 'for'} ${how}`;
}

/** "VAT 7.5%", "VAT 7.5% incl." (the price holds it already). */
const describeTax = (tax: TaxAmountFigures) => `${tax.displayName} ${tax.percentage}%${tax.inclusive ? ' incl.' : ''}`;

/**
 * Subtotal, discount, each tax and the total to pay, when a coupon or a tax applies (docs/api-behaviour.md
 * §19, §21): billing's quote as it is, the figures the payment charges and the first invoice shows.
 */
function priceSummary(model: CheckoutPageModel): string {
  const { plan, quote, coupon } = model;
  if (!coupon && quote.taxAmounts.length === 0) return '';
  const money = (minor: number) => escapeHtml(formatMoney(minor, plan.currency));
  const due = plan.trialPeriodDays > 0 ? 'First payment, when the trial ends' : 'To pay now';
  const discount = coupon
    ? `
  <div><dt>Discount <span class="muted">(${escapeHtml(describeDiscount(coupon, plan.currency))})</span></dt><dd data-testid="discount">&minus;${money(quote.discount)}</dd></div>`
    : '';
  const taxes = quote.taxAmounts
    .map(
      (tax) => `
  <div><dt data-testid="tax-name">${escapeHtml(describeTax(tax))}</dt><dd data-testid="tax">${money(tax.amount)}</dd></div>`,
    )
    .join('');
  return `<dl class="summary" aria-label="Price">
  <div><dt>Subtotal</dt><dd data-testid="original-price">${money(quote.subtotal)}</dd></div>${discount}${taxes}
  <div class="total"><dt>${due}</dt><dd data-testid="total">${money(quote.amount)}</dd></div>
</dl>${
    quote.amount === 0 && plan.trialPeriodDays === 0
      ? '<p class="muted">Nothing to pay now: your card is only checked (a small charge, refunded at once).</p>'
      : ''
  }`;
}

/** The hosted checkout: works without JavaScript, labels on every input, errors announced. */
export function checkoutPage(model: CheckoutPageModel): string {
  const { plan } = model;
  const price = formatMoney(plan.amount, plan.currency);
  const trial =
    plan.trialPeriodDays > 0
      ? `<p class="trial">${plan.trialPeriodDays}-day free trial. Your card is checked now (a small charge, refunded at once) and first charged when the trial ends.</p>`
      : '';
  const error = model.error ? `<p class="error" role="alert">${escapeHtml(model.error)}</p>` : '';
  const notice = model.notice ? `<p class="notice" role="status">${escapeHtml(model.notice)}</p>` : '';
  // One form, so that what was typed survives "Apply"; the Apply button posts to its own action.
  const promotion = model.promotionCodes
    ? `<label for="promotion_code">Promotion code</label>
  <div class="promo">
    <input id="promotion_code" name="promotion_code" type="text" autocomplete="off" autocapitalize="characters" value="${escapeHtml(model.promotionCode)}">
    <button class="apply" type="submit" formaction="/checkout/${escapeHtml(model.code)}/promotion-code">Apply</button>
  </div>`
    : '';
  return layout(
    `Subscribe to ${plan.name}`,
    `${model.sellerName ? `<p class="seller" data-testid="seller">${escapeHtml(model.sellerName)}</p>\n` : ''}<h1>${escapeHtml(plan.name)}</h1>
${plan.description ? `<p class="muted">${escapeHtml(plan.description)}</p>` : ''}
<p class="price">${escapeHtml(price)} <span class="muted">${escapeHtml(formatInterval(plan.interval, plan.intervalCount))}</span></p>
${priceSummary(model)}${trial}${notice}${error}
<form method="post" action="/checkout/${escapeHtml(model.code)}/pay">
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="email" required value="${escapeHtml(model.email)}"${model.emailLocked ? ' readonly' : ''}>
  <label for="name">Name <span class="muted">(optional)</span></label>
  <input id="name" name="name" type="text" autocomplete="name" value="${escapeHtml(model.name)}">
  ${promotion}
  <button class="pay" type="submit">Pay</button>
</form>
<form method="post" action="/checkout/${escapeHtml(model.code)}/cancel">
  <button class="cancel" type="submit">Cancel</button>
</form>`,
  );
}

/** An end state of the session, with a way back to the merchant when there is one. */
export function checkoutStatusPage(title: string, message: string, link?: { href: string; label: string }): string {
  return layout(
    title,
    `<h1>${escapeHtml(title)}</h1><p role="status">${escapeHtml(message)}</p>${
      link ? `<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a></p>` : ''
    }`,
  );
}
