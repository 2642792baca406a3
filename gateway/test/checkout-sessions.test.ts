import { queryDatabase, type SharedPlatform, sharedPlatform } from '@billing/testing';
import { gatewayApi, ISO_UTC, registerMerchant, type Api, type RegisteredMerchant } from './support/api';

/** docs/api-behaviour.md §5 through the API: defaults, validation, scope rules, expiry. */
describe('checkout sessions', () => {
  let platform: SharedPlatform;
  let api: Api;
  let merchant: RegisteredMerchant;
  let other: RegisteredMerchant;
  let planId: string;

  const createSession = (apiKey: string, body: Record<string, unknown>) =>
    api('POST', '/api/v1/checkout/sessions', { apiKey, body });

  beforeAll(async () => {
    platform = await sharedPlatform();
    api = gatewayApi(platform.gatewayUrl);
    [merchant, other] = await Promise.all([registerMerchant(api, 'checkout'), registerMerchant(api, 'other')]);
    planId = (await api('POST', '/api/v1/plans', { apiKey: merchant.testKey, body: { name: 'Pro', amount: 2500 } }))
      .body.id;
  });
  afterAll(() => platform?.stop());

  it('creates a PENDING session with an unguessable code, checkout_url and a 24 h expiry by default', async () => {
    const before = Date.now();
    const res = await createSession(merchant.testKey, { plan_id: planId, metadata: { order: 42 } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'PENDING',
      plan_id: planId,
      livemode: false,
      success_url: null,
      cancel_url: null,
      customer_id: null,
      subscription_id: null,
      metadata: { order: 42 },
    });
    expect(res.body.code).toMatch(/^[0-9A-Za-z]{8,16}$/);
    expect(res.body.checkout_url).toBe(`${platform.env.PUBLIC_URL}/checkout/${res.body.code}`);
    expect(res.body.created_at).toMatch(ISO_UTC);
    const minutes = (Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)) / 60_000;
    expect(minutes).toBe(1440);
    expect(Date.parse(res.body.created_at)).toBeGreaterThanOrEqual(before - 1000);
    const again = await createSession(merchant.testKey, { plan_id: planId });
    expect(again.body.code).not.toBe(res.body.code);
    const got = await api('GET', `/api/v1/checkout/sessions/${res.body.code}`, { apiKey: merchant.testKey });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it('honours expires_in_minutes and answers 422 for bad URLs, emails and expiry', async () => {
    const ok = await createSession(merchant.testKey, {
      plan_id: planId,
      expires_in_minutes: 5,
      customer_email: 'a@b.co',
    });
    expect((Date.parse(ok.body.expires_at) - Date.parse(ok.body.created_at)) / 60_000).toBe(5);
    expect(ok.body.customer_email).toBe('a@b.co');
    const bad = await createSession(merchant.testKey, {
      plan_id: planId,
      success_url: 'javascript:alert(1)',
      cancel_url: 'not a url',
      customer_email: 'nope',
      expires_in_minutes: 4,
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: { loc: string[] }) => d.loc[1]).sort()).toEqual(
      ['cancel_url', 'customer_email', 'expires_in_minutes', 'success_url'].sort(),
    );
    expect((await createSession(merchant.testKey, { plan_id: planId, expires_in_minutes: 1441 })).status).toBe(422);
    const missing = await createSession(merchant.testKey, {});
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0]).toMatchObject({ loc: ['body', 'plan_id'], type: 'missing' });
  });

  it("refuses an inactive plan with 400, another merchant's plan with 403, an unknown one with 404", async () => {
    const retired = (await api('POST', '/api/v1/plans', { apiKey: merchant.testKey, body: { name: 'Old', amount: 1 } }))
      .body.id;
    await api('DELETE', `/api/v1/plans/${retired}`, { apiKey: merchant.testKey });
    const inactive = await createSession(merchant.testKey, { plan_id: retired });
    expect(inactive.status).toBe(400);
    expect(inactive.body.detail).toMatch(/not active/);
    expect((await createSession(other.testKey, { plan_id: planId })).status).toBe(403);
    expect((await createSession(merchant.testKey, { plan_id: '00000000-0000-4000-8000-000000000000' })).status).toBe(
      404,
    );
    expect((await createSession(merchant.liveKey, { plan_id: planId })).status).toBe(404);
  });

  it('keeps sessions to their project and mode: 403 across merchants, 404 across modes and for bad codes', async () => {
    const session = (await createSession(merchant.testKey, { plan_id: planId })).body;
    expect((await api('GET', `/api/v1/checkout/sessions/${session.code}`, { apiKey: other.testKey })).status).toBe(403);
    expect((await api('GET', `/api/v1/checkout/sessions/${session.code}`, { apiKey: merchant.liveKey })).status).toBe(
      404,
    );
    expect((await api('GET', '/api/v1/checkout/sessions/ZZZZZZZZZZZZZZZZ', { apiKey: merchant.testKey })).status).toBe(
      404,
    );
    expect((await api('GET', '/api/v1/checkout/sessions/bad%20code!', { apiKey: merchant.testKey })).status).toBe(404);
    expect((await api('GET', `/api/v1/checkout/sessions/${session.code}`, {})).status).toBe(401);
  });

  it('expires a pending session on request (then 400 on a second try) and emits checkout.session.expired', async () => {
    const session = (await createSession(merchant.testKey, { plan_id: planId })).body;
    const expired = await api('POST', `/api/v1/checkout/sessions/${session.code}/expire`, { apiKey: merchant.testKey });
    expect(expired.status).toBe(200);
    expect(expired.body.status).toBe('EXPIRED');
    const twice = await api('POST', `/api/v1/checkout/sessions/${session.code}/expire`, { apiKey: merchant.testKey });
    expect(twice.status).toBe(400);
    const events = await queryDatabase<{ payload: { data: { code: string; status: string } } }>(
      platform.database('catalog'),
      `SELECT payload FROM outbox_events WHERE event_type = 'checkout.session.expired'`,
    );
    expect(events.filter((e) => e.payload.data.code === session.code).map((e) => e.payload.data.status)).toEqual([
      'EXPIRED',
    ]);
  });

  it('sweeps sessions past expires_at to EXPIRED, each with its event', async () => {
    const sessions = await Promise.all(
      [1, 2, 3].map(() => createSession(merchant.testKey, { plan_id: planId, expires_in_minutes: 5 })),
    );
    const codes = sessions.map((s) => s.body.code);
    // Time passes: the sessions' expiry is now in the past (the sweep reads the clock, not this).
    await queryDatabase(
      platform.database('catalog'),
      `UPDATE checkout_sessions SET expires_at = now() - interval '1 second' WHERE code = ANY($1)`,
      [codes],
    );
    const deadline = Date.now() + 10_000;
    let statuses: string[] = [];
    while (Date.now() < deadline) {
      statuses = await Promise.all(
        codes.map(
          async (code) =>
            (await api('GET', `/api/v1/checkout/sessions/${code}`, { apiKey: merchant.testKey })).body.status,
        ),
      );
      if (statuses.every((s) => s === 'EXPIRED')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(statuses).toEqual(['EXPIRED', 'EXPIRED', 'EXPIRED']);
    const events = await queryDatabase<{ code: string }>(
      platform.database('catalog'),
      `SELECT payload->'data'->>'code' AS code FROM outbox_events WHERE event_type = 'checkout.session.expired' AND payload->'data'->>'code' = ANY($1)`,
      [codes],
    );
    expect(events.map((e) => e.code).sort()).toEqual([...codes].sort());
  });

  it('serves the hosted page: email prefilled read-only when the session has one, labels, Pay and Cancel', async () => {
    const withEmail = (
      await createSession(merchant.testKey, {
        plan_id: planId,
        customer_email: 'known@example.com',
        customer_name: 'Known',
      })
    ).body;
    const page = await fetch(withEmail.checkout_url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.headers.get('cache-control')).toBe('no-store');
    const html = await page.text();
    expect(html).toMatch(/<label for="email">Email<\/label>/);
    expect(html).toMatch(/<input id="email" name="email" type="email"[^>]*value="known@example.com" readonly>/);
    expect(html).toContain('<button class="pay" type="submit">Pay</button>');
    expect(html).toContain('>Cancel</button>');
    expect(html).toContain('NGN');
    const blank = (await createSession(merchant.testKey, { plan_id: planId })).body;
    const blankHtml = await (await fetch(blank.checkout_url)).text();
    expect(blankHtml).toMatch(
      /<input id="email" name="email" type="email"[^>]*value="" required>|<input id="email" name="email" type="email"[^>]*required value="">/,
    );
    expect(blankHtml).not.toMatch(/id="email"[^>]*readonly/);
    expect((await fetch(`${platform.gatewayUrl}/checkout/ZZZZZZZZZZZZZZZZ`)).status).toBe(404);
  });

  it("follows the project's test clock: created in test time, expired by advancing the clock", async () => {
    const m = await registerMerchant(api, 'clock');
    const plan = (await api('POST', '/api/v1/plans', { apiKey: m.testKey, body: { name: 'Clocked', amount: 10 } }))
      .body;
    const start = new Date(Date.now() + 30 * 24 * 3600_000);
    const moved = await api('POST', '/api/v1/test-clock/advance', {
      apiKey: m.testKey,
      body: { to: start.toISOString() },
    });
    expect(moved.status).toBe(200);
    const session = (await createSession(m.testKey, { plan_id: plan.id, expires_in_minutes: 5 })).body;
    // Created in the project's test time, not real time.
    expect(Math.abs(Date.parse(session.created_at) - start.getTime())).toBeLessThan(60_000);
    const liveSession = (
      await createSession(m.liveKey, {
        plan_id: (await api('POST', '/api/v1/plans', { apiKey: m.liveKey, body: { name: 'Live', amount: 10 } })).body
          .id,
        expires_in_minutes: 5,
      })
    ).body;
    expect(Math.abs(Date.parse(liveSession.created_at) - Date.now())).toBeLessThan(60_000);

    const fourMinutes = new Date(Date.parse(session.created_at) + 4 * 60_000).toISOString();
    await api('POST', '/api/v1/test-clock/advance', { apiKey: m.testKey, body: { to: fourMinutes } });
    expect((await api('GET', `/api/v1/checkout/sessions/${session.code}`, { apiKey: m.testKey })).body.status).toBe(
      'PENDING',
    );
    const sixMinutes = new Date(Date.parse(session.created_at) + 6 * 60_000).toISOString();
    await api('POST', '/api/v1/test-clock/advance', { apiKey: m.testKey, body: { to: sixMinutes } });
    // Processed before the advance answered: no waiting for the periodic sweep.
    const after = await api('GET', `/api/v1/checkout/sessions/${session.code}`, { apiKey: m.testKey });
    expect(after.body.status).toBe('EXPIRED');
    const live = await api('GET', `/api/v1/checkout/sessions/${liveSession.code}`, { apiKey: m.liveKey });
    expect(live.body.status).toBe('PENDING');
    const events = await queryDatabase<{ created_at: string }>(
      platform.database('catalog'),
      `SELECT payload->>'created_at' AS created_at FROM outbox_events
        WHERE event_type = 'checkout.session.expired' AND payload->'data'->>'code' = $1`,
      [session.code],
    );
    expect(events).toHaveLength(1);
    expect(Date.parse(events[0].created_at)).toBeGreaterThanOrEqual(Date.parse(sixMinutes) - 1000);
  });

  it('documents the checkout routes in /openapi.json', async () => {
    const doc = (await api('GET', '/openapi.json')).body;
    expect(Object.keys(doc.paths['/api/v1/checkout/sessions'])).toEqual(['post']);
    expect(Object.keys(doc.paths['/api/v1/checkout/sessions/{code}'])).toEqual(['get']);
    expect(Object.keys(doc.paths['/api/v1/checkout/sessions/{code}/expire'])).toEqual(['post']);
    expect(doc.components.schemas.CheckoutSession).toBeDefined();
  });
});
