const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Everything interpolated into markup goes through here: emails and metadata come from merchants. */
export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => ESCAPES[c]);

/** Integer minor units as the payer reads them: "NGN 5,000.50". BigInt keeps it exact for any size. */
export function displayAmount(amount: number, currency: string): string {
  const minor = BigInt(amount);
  const major = (minor / 100n).toLocaleString('en-US');
  const cents = (minor % 100n).toString().padStart(2, '0');
  return `${currency} ${major}.${cents}`;
}

const STYLE = `
  body { font-family: system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #1d2433; }
  main { max-width: 28rem; margin: 0 auto; padding: 1.5rem 1rem; }
  .card { background: #fff; border-radius: 12px; padding: 1.25rem; box-shadow: 0 1px 3px rgba(0,0,0,.12); }
  .badge { display: inline-block; background: #fff3cd; color: #7a5b00; border-radius: 6px; padding: .2rem .5rem; font-size: .85rem; }
  .amount { font-size: 2rem; font-weight: 700; margin: .75rem 0 .25rem; }
  .muted { color: #5b6478; overflow-wrap: anywhere; }
  button { display: block; width: 100%; min-height: 3.25rem; margin-top: .75rem; border: 0; border-radius: 10px;
           font-size: 1.1rem; font-weight: 600; color: #fff; cursor: pointer; }
  /* White text on each: 4.5:1 at least (WCAG 2.1 AA). */
  .success { background: #187440; } .declined { background: #b42318; } .insufficient { background: #8a5a00; }
  a.cancel { display: block; text-align: center; margin-top: 1.25rem; padding: .75rem; font-size: 1rem; color: #1d2433; }
`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body><main>${body}</main></body>
</html>`;
}

export interface PaymentPageView {
  amount: number;
  currency: string;
  email: string;
  reference: string;
  /** Null when the merchant gave no callback or cancel_action: there is nowhere to go back to. */
  cancelUrl: string | null;
}

/**
 * The hosted payment page: no card form, just the outcomes a tester picks (docs/api-behaviour.md §16.3). Plain
 * HTML with one form and no script, so it works on any phone and in any test browser.
 */
export function renderPaymentPage(view: PaymentPageView): string {
  const cancel = view.cancelUrl ? `<a class="cancel" href="${escapeHtml(view.cancelUrl)}">Cancel payment</a>` : '';
  return layout(
    'Sandbox payment',
    `<div class="card">
  <span class="badge">Test mode: no real money moves</span>
  <p class="amount">${escapeHtml(displayAmount(view.amount, view.currency))}</p>
  <p class="muted">${escapeHtml(view.email)}</p>
  <p class="muted">Reference ${escapeHtml(view.reference)}</p>
  <form method="post">
    <button type="submit" name="outcome" value="success" class="success">Success</button>
    <button type="submit" name="outcome" value="declined" class="declined">Declined</button>
    <button type="submit" name="outcome" value="insufficient_funds" class="insufficient">Insufficient funds</button>
  </form>
  ${cancel}
</div>`,
  );
}

/** A page with one message, and a way back to the merchant when there is one. */
export function renderMessagePage(title: string, message: string, backUrl?: string | null): string {
  const back = backUrl ? `<a class="cancel" href="${escapeHtml(backUrl)}">Return to the merchant</a>` : '';
  return layout(title, `<div class="card"><p>${escapeHtml(message)}</p>${back}</div>`);
}
