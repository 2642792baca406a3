import { type SharedPlatform, sharedPlatform } from '@billing/testing';
import {
  createdBody,
  gatewayApi,
  ISO_UTC,
  merchantCalls,
  registerMerchant,
  UUID,
  type Api,
  type RegisteredMerchant,
} from './support/api';

/** docs/api-behaviour.md §24: the portal configuration and POST /portal/sessions. */
describe('customer portal configuration and sessions (gateway -> portal -> catalog, billing)', () => {
  let platform: SharedPlatform;
  let api: Api;
  let acme: RegisteredMerchant;
  let other: RegisteredMerchant;
  const { post, get } = merchantCalls(() => api);
  const put = (m: RegisteredMerchant, body: unknown) =>
    api('PUT', '/api/v1/portal/configuration', { apiKey: m.testKey, body });

  beforeAll(async () => {
    platform = await sharedPlatform();
    api = gatewayApi(platform.gatewayUrl);
    [acme, other] = await Promise.all([registerMerchant(api, 'portal-config'), registerMerchant(api, 'portal-other')]);
  });
  afterAll(() => platform?.stop());

  const configuration = (planIds: string[], extra: Record<string, unknown> = {}) => ({
    cancellation: 'IMMEDIATELY',
    plan_change: { enabled: true, plan_ids: planIds, proration: 'NONE' },
    payment_method_update: false,
    billing_details_update: true,
    headline: 'Manage your Acme plan',
    return_url_default: 'https://acme.example.com/account',
    ...extra,
  });

  it('answers the defaults before any PUT: cancel at period end, no plan changes, both updates on', async () => {
    const res = await get(other, '/portal/configuration');
    expect([res.status, res.body]).toEqual([
      200,
      {
        cancellation: 'AT_PERIOD_END',
        plan_change: { enabled: false, plan_ids: [], proration: 'IMMEDIATE' },
        payment_method_update: true,
        billing_details_update: true,
        headline: null,
        return_url_default: null,
        livemode: false,
        updated_at: null,
      },
    ]);
  });

  it('keeps what a PUT writes, per project and mode, and a second PUT replaces it', async () => {
    const [basic, pro] = await Promise.all([
      createdBody(post(acme, '/plans', { name: 'Basic', amount: 1000 })),
      createdBody(post(acme, '/plans', { name: 'Pro', amount: 3000 })),
    ]);
    const written = await put(acme, configuration([basic.id, pro.id]));
    expect([written.status, written.body]).toEqual([
      200,
      { ...configuration([basic.id, pro.id]), livemode: false, updated_at: expect.stringMatching(ISO_UTC) },
    ]);
    expect((await get(acme, '/portal/configuration')).body).toEqual(written.body);
    // The live mode of the same project still has the defaults.
    const live = await api('GET', '/api/v1/portal/configuration', { apiKey: acme.liveKey });
    expect(live.body).toMatchObject({ cancellation: 'AT_PERIOD_END', livemode: true, updated_at: null });

    const replaced = await put(acme, { ...configuration([]), plan_change: { enabled: false } });
    expect(replaced.body).toMatchObject({ plan_change: { enabled: false, plan_ids: [], proration: 'IMMEDIATE' } });
  });

  it("refuses with 422 plans that are inactive, unknown, another project's or of two currencies", async () => {
    const [ngn, usd, inactive, foreign] = await Promise.all([
      createdBody(post(acme, '/plans', { name: 'NGN', amount: 1000 })),
      createdBody(post(acme, '/plans', { name: 'USD', amount: 10, currency: 'USD' })),
      createdBody(post(acme, '/plans', { name: 'Old', amount: 500 })),
      createdBody(post(other, '/plans', { name: 'Theirs', amount: 700 })),
    ]);
    expect((await api('DELETE', `/api/v1/plans/${inactive.id}`, { apiKey: acme.testKey })).status).toBeLessThan(300);

    const mixed = await put(acme, configuration([ngn.id, usd.id]));
    expect(mixed.status).toBe(422);
    expect(JSON.stringify(mixed.body.detail)).toContain('one currency');
    for (const bad of [inactive.id, foreign.id, '00000000-0000-4000-8000-000000000000']) {
      const res = await put(acme, configuration([ngn.id, bad]));
      expect([res.status, res.body.detail[0].loc]).toEqual([422, ['body', 'plan_change', 'plan_ids', 1]]);
    }
    const one = await put(acme, configuration([ngn.id]));
    expect(one.status).toBe(422);
    const longHeadline = await put(
      acme,
      configuration([], { plan_change: { enabled: false }, headline: 'x'.repeat(101) }),
    );
    expect(longHeadline.status).toBe(422);
    const badUrl = await put(
      acme,
      configuration([], { plan_change: { enabled: false }, return_url_default: 'javascript:alert(1)' }),
    );
    expect(badUrl.status).toBe(422);
    const badMode = await put(acme, configuration([], { plan_change: { enabled: false }, cancellation: 'SOMETIMES' }));
    expect(badMode.status).toBe(422);
  });

  it("creates a session of the project's customer: a URL under /portal/s/ that works for 10 minutes", async () => {
    const customer = await createdBody(post(acme, '/customers', { email: `portal-${Date.now()}@example.com` }));
    const before = Date.now();
    const res = await post(acme, '/portal/sessions', {
      customer_id: customer.id,
      return_url: 'https://acme.example.com/back',
    });
    expect([res.status, res.body]).toEqual([
      201,
      {
        id: expect.stringMatching(UUID),
        customer_id: customer.id,
        url: expect.stringMatching(new RegExp(`^${platform.gatewayUrl}/portal/s/[A-Za-z0-9_-]{43}$`)),
        expires_at: expect.stringMatching(ISO_UTC),
        return_url: 'https://acme.example.com/back',
        livemode: false,
        created_at: expect.stringMatching(ISO_UTC),
      },
    ]);
    const lifetime = Date.parse(res.body.expires_at) - Date.parse(res.body.created_at);
    expect(lifetime).toBe(10 * 60 * 1000);
    expect(Date.parse(res.body.created_at)).toBeGreaterThanOrEqual(before - 1000);
    const again = await post(acme, '/portal/sessions', { customer_id: customer.id });
    expect(again.body.url).not.toBe(res.body.url);
  });

  it("refuses a session of an unknown customer (404), another project's (403) and a bad return_url (422)", async () => {
    const theirs = await createdBody(post(other, '/customers', { email: `theirs-${Date.now()}@example.com` }));
    const unknown = await post(acme, '/portal/sessions', { customer_id: '00000000-0000-4000-8000-000000000000' });
    const foreign = await post(acme, '/portal/sessions', { customer_id: theirs.id });
    const badUrl = await post(acme, '/portal/sessions', { customer_id: theirs.id, return_url: 'ftp://x' });
    const noCustomer = await post(acme, '/portal/sessions', {});
    expect([unknown.status, foreign.status, badUrl.status, noCustomer.status]).toEqual([404, 403, 422, 422]);
  });
});
