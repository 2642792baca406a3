import { createdBody, merchantCalls, registerMerchant, type Api, type Json, type RegisteredMerchant } from './api';
import { payHostedCheckout, type PaidCheckout } from './hosted-checkout';

/** A PDF or page fetched as the customer's browser would: no API key unless given. */
export async function download(
  url: string,
  apiKey?: string,
): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const res = await fetch(url, { headers: apiKey ? { 'x-api-key': apiKey } : {} });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

export interface OpenInvoice {
  m: RegisteredMerchant;
  payer: PaidCheckout;
  subscriptionId: string;
  /** The renewal invoice whose charge was declined: OPEN, its subscription PAST_DUE. */
  invoice: Json;
}

/**
 * A merchant with seller details, a customer with buyer details and a saved card, a monthly plan
 * of 10,000 NGN with 7.5% VAT (exclusive) and a 0.5% stamp duty (inclusive), and a coupon of 25%
 * forever; the card then declines the first renewal, which leaves an OPEN invoice (taxed,
 * discounted) and the subscription PAST_DUE: what a hosted invoice page is for.
 */
export async function openTaxedInvoice(api: Api, gatewayUrl: string, label: string): Promise<OpenInvoice> {
  const { post, patch, get } = merchantCalls(() => api);
  const m = await registerMerchant(api, label);
  const seller = await api('PATCH', '/api/v1/merchants/me', {
    token: m.token,
    body: {
      legal_name: `${label} Cloud Services Ltd`,
      address: { line1: '12 Ahmadu Bello Way', city: 'Abuja', state: 'FCT', postal_code: '900211', country: 'NG' },
      tax_id: 'TIN 12345678-0001',
      invoice_footer: 'Thank you for your business.',
    },
  });
  if (seller.status !== 200) throw new Error(`seller details: ${seller.status} ${seller.text}`);
  const vat = await createdBody(post(m, '/tax-rates', { display_name: 'VAT', percentage: 7.5, inclusive: false }));
  const stamp = await createdBody(
    post(m, '/tax-rates', { display_name: 'Stamp duty', percentage: 0.5, inclusive: true }),
  );
  await createdBody(post(m, '/coupons', { code: 'QUARTER', percent_off: 25, duration: 'FOREVER' }));
  const plan = await createdBody(post(m, '/plans', { name: 'Pro', amount: 10_000 }));
  // A card checked by a checkout whose trial outlasts every test: nothing of it is ever charged.
  const trial = await createdBody(post(m, '/plans', { name: 'Card check', amount: 1, trial_period_days: 730 }));
  const payer = await payHostedCheckout(api, gatewayUrl, m.testKey, trial.id, label);
  const buyer = await patch(m, `/customers/${payer.customerId}`, {
    name: 'Ada Obi',
    address: { line1: '3 Marina Road', city: 'Lagos', country: 'NG' },
    tax_id: 'NG-TIN-998877',
  });
  if (buyer.status !== 200) throw new Error(`buyer details: ${buyer.status} ${buyer.text}`);
  const subscription = await createdBody(
    post(m, '/subscriptions', {
      customer_id: payer.customerId,
      plan_id: plan.id,
      coupon_code: 'QUARTER',
      tax_rate_ids: [vat.id, stamp.id],
    }),
  );
  const declined = await post(m, `/test-helpers/customers/${payer.customerId}/card`, { behavior: 'decline' });
  if (declined.status !== 200) throw new Error(`card behaviour: ${declined.status} ${declined.text}`);
  const to = new Date(Date.parse(subscription.current_period_end) + 60_000).toISOString();
  const advanced = await post(m, '/test-clock/advance', { to });
  if (advanced.status !== 200) throw new Error(`test clock: ${advanced.status} ${advanced.text}`);
  const invoices = (await get(m, `/invoices?subscription_id=${subscription.id}&status=OPEN`)).body as Json[];
  if (invoices.length !== 1) throw new Error(`expected one OPEN invoice, found ${invoices.length}`);
  return { m, payer, subscriptionId: subscription.id, invoice: invoices[0] };
}
