import { type SharedPlatform, sharedPlatform } from '@billing/testing';
import { gatewayApi, ISO_UTC, registerMerchant, UUID, type Api, type RegisteredMerchant } from './support/api';

describe('customers (gateway -> billing over gRPC -> sandbox provider + PostgreSQL)', () => {
  let platform: SharedPlatform;
  let api: Api;
  let acme: RegisteredMerchant;
  let other: RegisteredMerchant;

  const createCustomer = (apiKey: string, body: Record<string, unknown>) =>
    api('POST', '/api/v1/customers', { apiKey, body });
  const uniqueAddress = (label: string) => `${label}-${Math.random().toString(36).slice(2, 10)}@example.com`;

  beforeAll(async () => {
    // Live mode speaks Paystack's protocol; on the shared platform the sandbox plays Paystack.
    platform = await sharedPlatform();
    api = gatewayApi(platform.gatewayUrl);
    [acme, other] = await Promise.all([registerMerchant(api, 'customers'), registerMerchant(api, 'other')]);
  });
  afterAll(() => platform?.stop());

  it('creates a customer here and at the payment provider', async () => {
    const email = uniqueAddress('ada');
    const res = await createCustomer(acme.testKey, { email, name: 'Ada Obi', metadata: { crm_id: 7 } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      email,
      name: 'Ada Obi',
      gateway_customer_id: expect.stringMatching(/^CUS_/),
      metadata: { crm_id: 7 },
      balance: 0,
      balance_currency: null,
      tax_exempt: 'NONE',
      address: null,
      tax_id: null,
      preferred_locale: 'en',
      livemode: false,
      created_at: expect.stringMatching(ISO_UTC),
    });
    const bare = await createCustomer(acme.testKey, { email: uniqueAddress('bare') });
    expect(bare.status).toBe(201);
    expect(bare.body).toMatchObject({ name: null, metadata: {} });
  });

  it('answers 409 for an e-mail already used in the project and mode, whatever its case', async () => {
    const email = uniqueAddress('dup');
    expect((await createCustomer(acme.testKey, { email })).status).toBe(201);
    const again = await createCustomer(acme.testKey, { email: email.toUpperCase() });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ detail: expect.any(String) });
    // The same e-mail is free in another project and in the other mode.
    expect((await createCustomer(other.testKey, { email })).status).toBe(201);
    expect((await createCustomer(acme.liveKey, { email })).status).toBe(201);
  });

  it('answers 422 in the documented shape for an invalid body', async () => {
    const invalid = await createCustomer(acme.testKey, { email: 'not-an-email' });
    expect(invalid.status).toBe(422);
    expect(invalid.body.detail[0]).toMatchObject({ loc: ['body', 'email'], type: 'value_error' });
    const missing = await createCustomer(acme.testKey, { name: 'No Email' });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0]).toMatchObject({ loc: ['body', 'email'], type: 'missing' });
    const tooMuchMetadata = await createCustomer(acme.testKey, {
      email: uniqueAddress('meta'),
      metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])),
    });
    expect(tooMuchMetadata.status).toBe(422);
    expect(tooMuchMetadata.body.detail[0].loc).toEqual(['body', 'metadata']);
    expect((await api('POST', '/api/v1/customers', { body: { email: uniqueAddress('x') } })).status).toBe(401);
  });

  it('lists newest first, filters by e-mail case-insensitively, pages with limit and starting_after', async () => {
    const m = await registerMerchant(api, 'lister');
    const emails = Array.from({ length: 5 }, (_, i) => uniqueAddress(`list${i}`));
    const ids: string[] = [];
    for (const email of emails) ids.push((await createCustomer(m.testKey, { email })).body.id);

    const all = await api('GET', '/api/v1/customers', { apiKey: m.testKey });
    expect(all.status).toBe(200);
    expect(all.body.map((c: { id: string }) => c.id)).toEqual([...ids].reverse());
    const first = await api('GET', '/api/v1/customers?limit=2', { apiKey: m.testKey });
    expect(first.body.map((c: { id: string }) => c.id)).toEqual([ids[4], ids[3]]);
    const second = await api('GET', `/api/v1/customers?limit=2&starting_after=${ids[3]}`, { apiKey: m.testKey });
    expect(second.body.map((c: { id: string }) => c.id)).toEqual([ids[2], ids[1]]);
    const past = await api('GET', `/api/v1/customers?limit=2&starting_after=${ids[0]}`, { apiKey: m.testKey });
    expect(past.body).toEqual([]);

    const filtered = await api('GET', `/api/v1/customers?email=${encodeURIComponent(emails[2].toUpperCase())}`, {
      apiKey: m.testKey,
    });
    expect(filtered.status).toBe(200);
    expect(filtered.body).toHaveLength(1);
    expect(filtered.body[0]).toMatchObject({ id: ids[2], email: emails[2] });
    const nobody = await api('GET', `/api/v1/customers?email=nobody@example.com`, { apiKey: m.testKey });
    expect(nobody.body).toEqual([]);

    const unknownCursor = await api('GET', '/api/v1/customers?starting_after=00000000-0000-4000-8000-000000000000', {
      apiKey: m.testKey,
    });
    expect(unknownCursor.status).toBe(400);
    expect((await api('GET', '/api/v1/customers?limit=101', { apiKey: m.testKey })).status).toBe(422);
  });

  it('gets exactly {customer, subscriptions, invoices}; unknown or malformed id -> 404; other merchant -> 403', async () => {
    const created = (await createCustomer(acme.testKey, { email: uniqueAddress('get'), name: 'Get Me' })).body;
    const got = await api('GET', `/api/v1/customers/${created.id}`, { apiKey: acme.testKey });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ customer: created, subscriptions: [], invoices: [] });

    const unknown = await api('GET', '/api/v1/customers/00000000-0000-4000-8000-000000000000', {
      apiKey: acme.testKey,
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: expect.any(String) });
    const malformed = await api('GET', '/api/v1/customers/not-a-uuid', { apiKey: acme.testKey });
    expect(malformed.status).toBe(404);
    expect(malformed.body).toEqual({ detail: expect.any(String) });
    const foreign = await api('GET', `/api/v1/customers/${created.id}`, { apiKey: other.testKey });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toEqual({ detail: expect.any(String) });
    expect((await api('GET', `/api/v1/customers/${created.id}`)).status).toBe(401);
  });

  it('keeps test and live customers apart', async () => {
    const testCustomer = (await createCustomer(acme.testKey, { email: uniqueAddress('test') })).body;
    const liveRes = await createCustomer(acme.liveKey, { email: uniqueAddress('live') });
    expect(liveRes.status).toBe(201);
    const liveCustomer = liveRes.body;
    expect(liveCustomer.livemode).toBe(true);
    expect(liveCustomer.gateway_customer_id).toMatch(/^CUS_/);
    expect((await api('GET', `/api/v1/customers/${testCustomer.id}`, { apiKey: acme.liveKey })).status).toBe(404);
    expect((await api('GET', `/api/v1/customers/${liveCustomer.id}`, { apiKey: acme.testKey })).status).toBe(404);
    const liveList = await api('GET', '/api/v1/customers?limit=100', { apiKey: acme.liveKey });
    expect(liveList.body.every((c: { livemode: boolean }) => c.livemode)).toBe(true);
    expect(liveList.body.map((c: { id: string }) => c.id)).toContain(liveCustomer.id);
    expect(liveList.body.map((c: { id: string }) => c.id)).not.toContain(testCustomer.id);
    const patchAcross = await api('PATCH', `/api/v1/customers/${testCustomer.id}`, {
      apiKey: acme.liveKey,
      body: { name: 'x' },
    });
    expect(patchAcross.status).toBe(404);
  });

  it('updates name and metadata only', async () => {
    const created = (await createCustomer(acme.testKey, { email: uniqueAddress('patch'), name: 'Old' })).body;
    const renamed = await api('PATCH', `/api/v1/customers/${created.id}`, {
      apiKey: acme.testKey,
      body: { name: 'New Name', metadata: { tier: 'gold' }, email: 'ignored@example.com' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ ...created, name: 'New Name', metadata: { tier: 'gold' } });
    const unchanged = await api('PATCH', `/api/v1/customers/${created.id}`, { apiKey: acme.testKey, body: {} });
    expect(unchanged.body).toEqual(renamed.body);
    const got = await api('GET', `/api/v1/customers/${created.id}`, { apiKey: acme.testKey });
    expect(got.body.customer).toEqual(renamed.body);
    const foreign = await api('PATCH', `/api/v1/customers/${created.id}`, {
      apiKey: other.testKey,
      body: { name: 'x' },
    });
    expect(foreign.status).toBe(403);
    const invalid = await api('PATCH', `/api/v1/customers/${created.id}`, { apiKey: acme.testKey, body: { name: '' } });
    expect(invalid.status).toBe(422);
  });

  it('documents the customer routes in /openapi.json', async () => {
    const doc = (await api('GET', '/openapi.json')).body;
    expect(Object.keys(doc.paths['/api/v1/customers']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/api/v1/customers/{customer_id}']).sort()).toEqual(['get', 'patch']);
    expect(Object.keys(doc.components.schemas.CustomerDetail.properties).sort()).toEqual([
      'customer',
      'invoices',
      'subscriptions',
    ]);
    expect(doc.components.schemas.CustomerDetail.required.sort()).toEqual(['customer', 'invoices', 'subscriptions']);
  });
});
