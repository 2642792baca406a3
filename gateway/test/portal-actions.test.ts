import { queryDatabase, type SharedPlatform, sharedPlatform } from '@billing/testing';
import {
  createdBody,
  gatewayApi,
  merchantCalls,
  registerMerchant,
  type Api,
  type RegisteredMerchant,
} from './support/api';
import { payHostedCheckout } from './support/hosted-checkout';
import { csrfOf, openPortal, portalSessionUrl } from './support/portal';
import { sandboxControlsOf } from './support/test-clock';

const naira = (minor: number) =>
  new Intl.NumberFormat('en', { style: 'currency', currency: 'NGN', currencyDisplay: 'narrowSymbol' }).format(
    minor / 100,
  );

/**
 * The portal's actions over HTTP as a browser without script sends them (docs/api-behaviour.md
 * §24): what the configuration offers, the confirmation step, "Confirm" doing what the API does
 * once however often it is pressed, and "Return".
 */
describe('customer portal actions', () => {
  let platform: SharedPlatform;
  let api: Api;
  const { post, get } = merchantCalls(() => api);

  beforeAll(async () => {
    platform = await sharedPlatform();
    api = gatewayApi(platform.gatewayUrl);
  });
  afterAll(() => platform?.stop());

  async function merchantWith(label: string, configuration: Record<string, unknown>) {
    const m = await registerMerchant(api, label);
    const res = await api('PUT', '/api/v1/portal/configuration', {
      apiKey: m.testKey,
      body: {
        cancellation: 'AT_PERIOD_END',
        plan_change: { enabled: false },
        payment_method_update: true,
        billing_details_update: true,
        ...configuration,
      },
    });
    expect(res.status).toBe(200);
    const plan = await createdBody(post(m, '/plans', { name: 'Pro', amount: 5000 }));
    return { m, planId: plan.id as string };
  }

  const cancelledEvents = async (subscriptionId: string) =>
    queryDatabase<{ payload: { data: { cancelled_by: string } } }>(
      platform.database('billing'),
      `SELECT payload FROM outbox_events WHERE event_type = 'subscription.cancelled' AND payload->'data'->>'id' = $1`,
      [subscriptionId],
    );

  it('cancels now with the refund the policy quotes, once however often "Confirm" is pressed', async () => {
    const { m, planId } = await merchantWith('portal-now', { cancellation: 'IMMEDIATELY' });
    const policy = await api('POST', '/api/v1/cancellation-policies', {
      apiKey: m.testKey,
      token: m.token,
      body: { name: 'Everything back', refund_type: 'FULL', is_default: true },
    });
    expect(policy.status).toBe(201);
    const paid = await payHostedCheckout(api, platform.gatewayUrl, m.testKey, planId, 'now');
    const preview = await post(m, `/subscriptions/${paid.subscriptionId}/cancel/preview`, { at_period_end: false });
    expect(preview.body.refund).toMatchObject({ amount: 5000, currency: 'NGN' });

    const { browser, home } = await openPortal(
      platform.gatewayUrl,
      await portalSessionUrl(api, acmeOf(m), paid.customerId),
    );
    const review = await browser.post(`/portal/subscriptions/${paid.subscriptionId}/cancel`, {
      csrf_token: csrfOf(home),
    });
    const page = await review.text();
    expect(review.status).toBe(200);
    expect(page).toContain('>Now<');
    expect(page).toContain(naira(preview.body.refund.amount * 100));
    // Reviewing changed nothing.
    expect((await get(m, `/subscriptions/${paid.subscriptionId}`)).body.status).toBe('ACTIVE');

    const confirmationId = /name="confirmation_id" value="([^"]+)"/.exec(page)![1];
    const form = { csrf_token: csrfOf(page), confirmation_id: confirmationId };
    const first = await browser.post(`/portal/subscriptions/${paid.subscriptionId}/cancel/confirm`, form);
    const again = await browser.post(`/portal/subscriptions/${paid.subscriptionId}/cancel/confirm`, form);
    expect([first.status, first.headers.get('location')]).toEqual([303, '/portal?done=cancelled']);
    expect(again.status).toBe(303);

    const sub = (await get(m, `/subscriptions/${paid.subscriptionId}`)).body;
    expect([sub.status, sub.cancelled_by]).toEqual(['CANCELLED', 'CUSTOMER']);
    const ledger = await sandboxControlsOf(platform).ledger({ email: paid.email });
    expect(ledger.refunds.map((r) => r.amount)).toEqual([500_000]);
    const events = await cancelledEvents(paid.subscriptionId);
    expect(events.map((e) => e.payload.data.cancelled_by)).toEqual(['CUSTOMER']);
  });

  it('offers no cancel and no card update when the configuration says so, and refuses them posted anyway with nothing changed', async () => {
    // Billing details stay on: their form carries the session's CSRF token the refusals are sent with.
    const { m, planId } = await merchantWith('portal-none', { cancellation: 'NONE', payment_method_update: false });
    const paid = await payHostedCheckout(api, platform.gatewayUrl, m.testKey, planId, 'none');
    const { browser, home } = await openPortal(
      platform.gatewayUrl,
      await portalSessionUrl(api, acmeOf(m), paid.customerId),
    );
    expect(home).not.toContain('Cancel subscription');
    expect(home).not.toContain('Update card');
    expect(home).not.toContain('>Return<');

    const csrf = csrfOf(home);
    const cancel = await browser.post(`/portal/subscriptions/${paid.subscriptionId}/cancel/confirm`, {
      csrf_token: csrf,
    });
    const card = await browser.post('/portal/card', { csrf_token: csrf });
    const back = await browser.post('/portal/return', { csrf_token: csrf });
    expect([cancel.status, card.status, back.status]).toEqual([400, 400, 404]);
    expect((await get(m, `/subscriptions/${paid.subscriptionId}`)).body).toMatchObject({
      status: 'ACTIVE',
      cancel_at_period_end: false,
    });
  });

  it('"Return" goes to the session\'s return_url before the configuration\'s', async () => {
    const { m, planId } = await merchantWith('portal-return', {
      return_url_default: 'https://acme.example.com/default',
    });
    const paid = await payHostedCheckout(api, platform.gatewayUrl, m.testKey, planId, 'return');
    const own = await openPortal(
      platform.gatewayUrl,
      await portalSessionUrl(api, acmeOf(m), paid.customerId, { return_url: 'https://acme.example.com/mine' }),
    );
    const plain = await openPortal(platform.gatewayUrl, await portalSessionUrl(api, acmeOf(m), paid.customerId));
    const fromOwn = await own.browser.post('/portal/return', { csrf_token: csrfOf(own.home) });
    const fromDefault = await plain.browser.post('/portal/return', { csrf_token: csrfOf(plain.home) });
    expect([fromOwn.status, fromOwn.headers.get('location')]).toEqual([303, 'https://acme.example.com/mine']);
    expect([fromDefault.status, fromDefault.headers.get('location')]).toEqual([
      303,
      'https://acme.example.com/default',
    ]);
  });

  it('refuses a billing details change billing refuses (a partial address) with the reason, and changes nothing', async () => {
    const { m, planId } = await merchantWith('portal-invalid', {});
    const paid = await payHostedCheckout(api, platform.gatewayUrl, m.testKey, planId, 'invalid');
    const { browser, home } = await openPortal(
      platform.gatewayUrl,
      await portalSessionUrl(api, acmeOf(m), paid.customerId),
    );
    const res = await browser.post('/portal/billing-details/confirm', {
      csrf_token: csrfOf(home),
      name: 'Ada',
      line1: '12 Marina Road',
      country: 'NG',
    });
    expect(res.status).toBe(422);
    expect(await res.text()).toContain('city');
    expect((await get(m, `/customers/${paid.customerId}`)).body.customer).toMatchObject({ name: null, address: null });
  });
});

/** The registered merchant as portalSessionUrl takes it. */
const acmeOf = (m: RegisteredMerchant) => m;
