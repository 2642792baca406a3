import {
  listenLocally,
  platformEvents,
  queryDatabase,
  sharedPlatform,
  type LocalEndpoint,
  type PlatformEvents,
  type SharedPlatform,
} from '@billing/testing';
import { MerchantProfileSchema, sellerDetailsExample } from '../src/routes/v1/merchants/merchants.schemas';
import { gatewayApi, ISO_UTC, registerMerchant, type Api, type Json, type RegisteredMerchant } from './support/api';
import { waitFor } from './support/wait';

/** The seller side of docs/api-behaviour.md §22: the details, their rules, and the event billing will keep. */

const SELLER_UPDATED = 'merchant.seller_details_updated';

const NO_DETAILS = { legal_name: null, address: null, tax_id: null, support_email: null, invoice_footer: null };

/** Every detail given: the story of the OpenAPI document's examples. */
const FULL_DETAILS = sellerDetailsExample;

interface SellerEvent {
  merchant_id: string;
  project_ids: string[];
  seller: Json;
  updated_at: string;
}

let platform: SharedPlatform;
let api: Api;
let events: PlatformEvents;

beforeAll(async () => {
  platform = await sharedPlatform();
  api = gatewayApi(platform.gatewayUrl);
  events = await platformEvents(platform);
});

afterAll(async () => {
  await events?.close();
  await platform?.stop();
});

const patchMe = (merchant: RegisteredMerchant, body: unknown) =>
  api('PATCH', '/api/v1/merchants/me', { token: merchant.token, body });
const me = async (merchant: RegisteredMerchant) =>
  (await api('GET', '/api/v1/merchants/me', { token: merchant.token })).body;
/** The seller events of one merchant published so far, oldest first. */
const sellerEventsOf = (merchant: RegisteredMerchant) =>
  events.all<SellerEvent>(SELLER_UPDATED, (e) => e.data.merchant_id === merchant.id);

describe('seller details on PATCH and GET /api/v1/merchants/me', () => {
  it('are all null for a new merchant', async () => {
    const merchant = await registerMerchant(api, 'seller-new');

    expect(await me(merchant)).toMatchObject(NO_DETAILS);
  });

  it('set every detail at once: the PATCH answers them and GET /merchants/me reads them back', async () => {
    const merchant = await registerMerchant(api, 'seller-set');

    const res = await patchMe(merchant, FULL_DETAILS);

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: merchant.id, business_name: 'seller-set Ltd', ...FULL_DETAILS });
    const read = await me(merchant);
    expect(() => MerchantProfileSchema.strict().parse(read)).not.toThrow();
    expect(read).toEqual({ ...res.body });
    expect(read).toMatchObject(FULL_DETAILS);
  });

  it('keep text trimmed, and an address without its optional parts reads back with them null', async () => {
    const merchant = await registerMerchant(api, 'seller-trim');

    const res = await patchMe(merchant, {
      legal_name: '  Acme Limited  ',
      address: { line1: ' 1 Marina ', city: 'Lagos', country: 'NG' },
    });

    expect(res.status).toBe(200);
    expect(await me(merchant)).toMatchObject({
      legal_name: 'Acme Limited',
      address: { line1: '1 Marina', line2: null, city: 'Lagos', state: null, postal_code: null, country: 'NG' },
    });
  });

  it('null clears a detail and leaves the others as they were; a new address replaces the old one whole', async () => {
    const merchant = await registerMerchant(api, 'seller-clear');
    await patchMe(merchant, FULL_DETAILS);

    const cleared = await patchMe(merchant, { tax_id: null, invoice_footer: null });
    const replaced = await patchMe(merchant, { address: { line1: '3 Oxford Road', city: 'Accra', country: 'GH' } });

    expect(cleared.status).toBe(200);
    expect(replaced.status).toBe(200);
    expect(await me(merchant)).toMatchObject({
      legal_name: FULL_DETAILS.legal_name,
      support_email: FULL_DETAILS.support_email,
      tax_id: null,
      invoice_footer: null,
      address: { line1: '3 Oxford Road', line2: null, city: 'Accra', state: null, postal_code: null, country: 'GH' },
    });
    const all = await patchMe(merchant, NO_DETAILS);
    expect(all.status).toBe(200);
    expect(await me(merchant)).toMatchObject(NO_DETAILS);
  });

  it("are the merchant's own: another merchant reads only its own, and its PATCH changes nothing of the first's", async () => {
    const acme = await registerMerchant(api, 'seller-acme');
    const other = await registerMerchant(api, 'seller-other');
    await patchMe(acme, FULL_DETAILS);

    const otherReads = await me(other);
    await patchMe(other, { legal_name: 'Other Limited', tax_id: null });

    expect(otherReads).toMatchObject({ id: other.id, ...NO_DETAILS });
    expect(await me(acme)).toMatchObject({ id: acme.id, ...FULL_DETAILS });
    expect(await me(other)).toMatchObject({ legal_name: 'Other Limited', tax_id: null, address: null });
  });
});

describe('seller details that break a rule: 422 with the documented body, and nothing saved', () => {
  const notString = { type: 'string_type', msg: 'Input should be a valid string' };
  const badCountry = {
    type: 'value_error',
    msg: 'Input should be an ISO 3166-1 alpha-2 country code in upper case (e.g. NG)',
  };
  const tooLong = (n: number) => ({
    type: 'string_too_long',
    msg: `String should have at most ${n} characters`,
    ctx: { max_length: n },
  });
  const address = (changes: Record<string, unknown>) => ({
    line1: '1 Marina',
    city: 'Lagos',
    country: 'NG',
    ...changes,
  });

  it.each<[string, Record<string, Json>, string[], Record<string, unknown>]>([
    ['legal_name over 100 characters', { legal_name: 'x'.repeat(101) }, ['legal_name'], tooLong(100)],
    ['tax_id over 40 characters', { tax_id: '9'.repeat(41) }, ['tax_id'], tooLong(40)],
    ['invoice_footer over 500 characters', { invoice_footer: 'f'.repeat(501) }, ['invoice_footer'], tooLong(500)],
    [
      'a postal_code over 20 characters',
      { address: address({ postal_code: '1'.repeat(21) }) },
      ['address', 'postal_code'],
      tooLong(20),
    ],
    [
      'an empty legal_name',
      { legal_name: '   ' },
      ['legal_name'],
      { type: 'string_too_short', msg: 'String should have at least 1 character', ctx: { min_length: 1 } },
    ],
    [
      'a support_email that is not an e-mail address',
      { support_email: 'billing at acme' },
      ['support_email'],
      { type: 'value_error', msg: 'value is not a valid email address' },
    ],
    [
      'a country that is no ISO 3166-1 code',
      { address: address({ country: 'XX' }) },
      ['address', 'country'],
      badCountry,
    ],
    ['a country in lower case', { address: address({ country: 'ng' }) }, ['address', 'country'], badCountry],
    ['a three-letter country', { address: address({ country: 'NGA' }) }, ['address', 'country'], badCountry],
    ['a legal_name that is a number', { legal_name: 42 }, ['legal_name'], notString],
    ['a tax_id that is a boolean', { tax_id: true }, ['tax_id'], notString],
    ['an invoice_footer that is a list', { invoice_footer: ['thanks'] }, ['invoice_footer'], notString],
    ['a support_email that is a number', { support_email: 5 }, ['support_email'], notString],
    ['a country that is a number', { address: address({ country: 566 }) }, ['address', 'country'], notString],
    [
      'an address that is a string',
      { address: '1 Marina, Lagos' },
      ['address'],
      { type: 'model_attributes_type', msg: 'Input should be a valid dictionary or object to extract fields from' },
    ],
  ])('%s', async (_case, body, loc, error) => {
    const merchant = await registerMerchant(api, 'seller-bad');

    const res = await patchMe(merchant, { ...body, business_name: 'Not Saved Ltd' });

    expect(res.status).toBe(422);
    const input = loc.reduce((value: Json, key) => value[key], body);
    expect(res.body).toEqual({ detail: [{ loc: ['body', ...loc], input, ...error }] });
    expect(await me(merchant)).toMatchObject({ business_name: 'seller-bad Ltd', ...NO_DETAILS });
  });

  it('an address without line1, city and country: one "missing" item for each', async () => {
    const merchant = await registerMerchant(api, 'seller-missing');

    const res = await patchMe(merchant, { address: { line2: 'Suite 4' } });

    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      detail: ['line1', 'city', 'country'].map((part) => ({
        loc: ['body', 'address', part],
        msg: 'Field required',
        type: 'missing',
      })),
    });
  });

  it('several bad details at once: every problem in one answer', async () => {
    const merchant = await registerMerchant(api, 'seller-many');

    const res = await patchMe(merchant, {
      legal_name: 'x'.repeat(101),
      support_email: 'nope',
      address: { line1: '1 Marina', city: 'Lagos', country: 'XX' },
    });

    expect(res.status).toBe(422);
    expect(res.body.detail.map((item: Json) => item.loc)).toEqual([
      ['body', 'legal_name'],
      ['body', 'address', 'country'],
      ['body', 'support_email'],
    ]);
  });
});

describe('the merchant.seller_details_updated event (internal, for billing)', () => {
  it('is published after a PATCH with the seller and every project of the merchant, in no project', async () => {
    const merchant = await registerMerchant(api, 'seller-event');
    const second = await api('POST', '/api/v1/projects', { token: merchant.token, body: { name: 'Second shop' } });
    expect(second.status).toBe(201);

    await patchMe(merchant, FULL_DETAILS);

    const { envelope } = await events.waitFor<SellerEvent>(
      SELLER_UPDATED,
      (e) => e.data.merchant_id === merchant.id && e.data.seller.legal_name !== null,
    );
    expect(envelope).toMatchObject({ event: SELLER_UPDATED, project_id: null, livemode: null });
    expect(envelope.data).toEqual({
      merchant_id: merchant.id,
      project_ids: expect.arrayContaining([merchant.projectId, second.body.id]),
      seller: { name: FULL_DETAILS.legal_name, business_name: 'seller-event Ltd', ...FULL_DETAILS },
      updated_at: expect.stringMatching(ISO_UTC),
    });
    expect(envelope.data.project_ids).toHaveLength(2);
  });

  it('names the seller after business_name while legal_name is not set, and follows a rename', async () => {
    const merchant = await registerMerchant(api, 'seller-rename');

    await patchMe(merchant, { business_name: 'Renamed Fitness' });

    const { envelope } = await events.waitFor<SellerEvent>(
      SELLER_UPDATED,
      (e) => e.data.merchant_id === merchant.id && e.data.seller.business_name === 'Renamed Fitness',
    );
    expect(envelope.data.seller).toEqual({ name: 'Renamed Fitness', business_name: 'Renamed Fitness', ...NO_DETAILS });
  });

  it('is published when a project is created, naming the new project and the current seller', async () => {
    const merchant = await registerMerchant(api, 'seller-project');
    await patchMe(merchant, { legal_name: 'Project Seller Limited', tax_id: 'TIN-1' });

    const created = await api('POST', '/api/v1/projects', { token: merchant.token, body: { name: 'New shop' } });

    expect(created.status).toBe(201);
    const { envelope } = await events.waitFor<SellerEvent>(
      SELLER_UPDATED,
      (e) => e.data.merchant_id === merchant.id && e.data.project_ids.includes(created.body.id),
    );
    expect(envelope.data.project_ids.sort()).toEqual([merchant.projectId, created.body.id].sort());
    expect(envelope.data.seller).toMatchObject({
      name: 'Project Seller Limited',
      legal_name: 'Project Seller Limited',
      tax_id: 'TIN-1',
    });
  });

  it('is published at registration for the first project; a password change alone publishes none', async () => {
    const merchant = await registerMerchant(api, 'seller-register');
    await patchMe(merchant, { password: 'a new password', current_password: merchant.password });
    // A later change, so that once it is on the stream, so would be anything the password change published.
    await patchMe(merchant, { support_email: 'help@register.example' });
    await events.waitFor<SellerEvent>(
      SELLER_UPDATED,
      (e) => e.data.merchant_id === merchant.id && e.data.seller.support_email !== null,
    );

    const published = await sellerEventsOf(merchant);

    expect(published.map((p) => [p.envelope.data.project_ids, p.envelope.data.seller.support_email])).toEqual([
      [[merchant.projectId], null],
      [[merchant.projectId], 'help@register.example'],
    ]);
    expect(published[0].envelope.data.seller).toEqual({
      name: 'seller-register Ltd',
      business_name: 'seller-register Ltd',
      ...NO_DETAILS,
    });
  });

  it('is not published by a PATCH that leaves the seller as it was, nor by a refused one', async () => {
    const merchant = await registerMerchant(api, 'seller-same');
    await patchMe(merchant, { legal_name: 'Same Limited' });

    await patchMe(merchant, { legal_name: 'Same Limited', business_name: 'seller-same Ltd' });
    await patchMe(merchant, { legal_name: 'Refused', support_email: 'nope' });
    await patchMe(merchant, { tax_id: 'TIN-LAST' });
    await events.waitFor<SellerEvent>(
      SELLER_UPDATED,
      (e) => e.data.merchant_id === merchant.id && e.data.seller.tax_id !== null,
    );

    const published = await sellerEventsOf(merchant);

    expect(published.map((p) => [p.envelope.data.seller.legal_name, p.envelope.data.seller.tax_id])).toEqual([
      [null, null],
      ['Same Limited', null],
      ['Same Limited', 'TIN-LAST'],
    ]);
  });
});

describe('notification and merchant.seller_details_updated', () => {
  let receiver: LocalEndpoint;
  const received: { path: string; body: Json }[] = [];

  beforeAll(async () => {
    receiver = await listenLocally((req, body, res) => {
      received.push({ path: req.url ?? '', body: JSON.parse(body.toString('utf8')) });
      res.writeHead(200).end();
    });
  });
  afterAll(() => receiver?.close());

  it('a webhook subscribed to every event gets nothing of it, and notification handles it without a failure', async () => {
    const merchant = await registerMerchant(api, 'seller-hook');
    const both = { apiKey: merchant.testKey, token: merchant.token };
    const hook = await api('POST', '/api/v1/webhooks', {
      ...both,
      body: { url: `${receiver.url}/seller-hook`, events: ['*'] },
    });
    expect(hook.status).toBe(201);

    await patchMe(merchant, FULL_DETAILS);
    const { envelope, seq } = await events.waitFor<SellerEvent>(
      SELLER_UPDATED,
      (e) => e.data.merchant_id === merchant.id && e.data.seller.legal_name !== null,
    );
    // Acked at once: a failing event would come back after 1 s, 2 s, ... and be acked only when parked.
    await events.waitForAcked('notification', seq, 10_000);
    // A catalogue event after it: once its delivery arrives, the webhook has had everything before it.
    const customer = await api('POST', '/api/v1/customers', {
      apiKey: merchant.testKey,
      body: { email: 'ada@example.com' },
    });
    expect(customer.status).toBe(201);
    await waitFor(
      'the customer.created delivery',
      async () => received.filter((r) => r.path === '/seller-hook'),
      (r) => r.length > 0,
    );

    expect(received.filter((r) => r.path === '/seller-hook').map((r) => r.body.event)).toEqual(['customer.created']);
    const deliveries = await api('GET', `/api/v1/webhooks/${hook.body.id}/deliveries`, both);
    expect(deliveries.body.map((d: Json) => d.event)).toEqual(['customer.created']);
    const parked = await queryDatabase(
      platform.database('notification'),
      'SELECT id FROM parked_events WHERE event_id = $1',
      [envelope.id],
    );
    expect(parked).toEqual([]);
  });
});
