import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { readRemoteError, sellerMessage, type EventEnvelope, type PromiseClient, type Seller } from '@billing/platform';
import { billingV1 } from '@billing/proto';
import {
  platformClient,
  platformEvents,
  queryDatabase,
  sharedPlatform,
  type PlatformEvents,
  type SharedPlatform,
} from '@billing/testing';
import { customerExample } from '../src/routes/v1/customers/customers.schemas';
import { sellerDetailsExample } from '../src/routes/v1/merchants/merchants.schemas';
import {
  createdBody,
  gatewayApi,
  merchantCalls,
  registerMerchant,
  type Api,
  type Json,
  type RegisteredMerchant,
} from './support/api';
import { payHostedCheckout } from './support/hosted-checkout';
import { waitFor } from './support/wait';

/**
 * The seller and the buyer of docs/api-behaviour.md §22 as invoices keep them: billing's copy of
 * each project's seller (from identity's merchant.seller_details_updated, or from identity itself
 * for a project without one yet), the customers' buyer details, and each invoice's snapshot of
 * both, read through billing's gRPC Invoice (the REST invoice does not show them).
 */

const SELLER_UPDATED = 'merchant.seller_details_updated';
/** Billing's durable consumer of the seller events (services/billing/src/server.ts). */
const SELLER_CONSUMER = 'billing-seller-details';

interface SellerEvent {
  merchant_id: string;
  project_ids: string[];
  seller: Seller;
  updated_at: string;
}

let platform: SharedPlatform;
let api: Api;
let events: PlatformEvents;
let billing: PromiseClient<billingV1.BillingServiceClient>;
const { post, patch, get } = merchantCalls(() => api);

beforeAll(async () => {
  platform = await sharedPlatform();
  api = gatewayApi(platform.gatewayUrl);
  events = await platformEvents(platform);
  billing = await platformClient(platform, 'billing', billingV1.BillingServiceClient);
});

afterAll(async () => {
  billing?.close();
  await events?.close();
  await platform?.stop();
});

const billingDb = <R extends Record<string, unknown>>(sql: string, params: unknown[] = []) =>
  queryDatabase<R>(platform.database('billing'), sql, params);

const patchMe = async (merchant: RegisteredMerchant, body: unknown) => {
  const res = await api('PATCH', '/api/v1/merchants/me', { token: merchant.token, body });
  expect([res.status, res.text]).toEqual([200, expect.any(String)]);
};

/** The first seller event of the merchant whose seller matches, once billing has read it. */
async function sellerInBilling(
  merchant: RegisteredMerchant,
  matches: (seller: Seller) => boolean,
): Promise<EventEnvelope<SellerEvent>> {
  const published = await events.waitFor<SellerEvent>(
    SELLER_UPDATED,
    (e) => e.data.merchant_id === merchant.id && matches(e.data.seller),
  );
  await events.waitForAcked(SELLER_CONSUMER, published.seq);
  return published.envelope;
}

/** A merchant whose new details billing has read; `details` as PATCH /merchants/me takes them. */
async function merchantWithSeller(label: string, details: Record<string, unknown>) {
  const merchant = await registerMerchant(api, label);
  await patchMe(merchant, details);
  const event = await sellerInBilling(merchant, (s) => s.legal_name === details.legal_name);
  return { merchant, event };
}

/** A new merchant's seller, no detail given: its business name. */
const bareSeller = (merchant: RegisteredMerchant): Seller => {
  const business = merchant.registration.business_name;
  const none = { legal_name: null, address: null, tax_id: null, support_email: null, invoice_footer: null };
  return { name: business, business_name: business, ...none };
};

const planOf = async (merchant: RegisteredMerchant) =>
  (await createdBody(post(merchant, '/plans', { name: 'Pro', amount: 5000 }))).id as string;

/** The invoices of a subscription, newest first, as GET /invoices lists them. */
const invoicesOf = async (merchant: RegisteredMerchant, subscriptionId: string): Promise<Json[]> =>
  (await get(merchant, `/invoices?subscription_id=${subscriptionId}`)).body;

/** A paid hosted checkout: a customer with a card, and its first invoice. */
async function firstInvoice(merchant: RegisteredMerchant, planId: string) {
  const paid = await payHostedCheckout(api, platform.gatewayUrl, merchant.testKey, planId);
  const [invoice] = await invoicesOf(merchant, paid.subscriptionId);
  return { paid, invoiceId: invoice.id as string };
}

/** Another subscription of a customer with a card (POST /subscriptions): its first invoice's id. */
async function nextInvoice(merchant: RegisteredMerchant, customerId: string, planId: string): Promise<string> {
  const subscription = await createdBody(
    post(merchant, '/subscriptions', { customer_id: customerId, plan_id: planId }),
  );
  const [invoice] = await invoicesOf(merchant, subscription.id);
  return invoice.id;
}

/** The seller and buyer an invoice kept, from billing's gRPC Invoice. */
async function partiesOf(merchant: RegisteredMerchant, invoiceId: string) {
  const { invoice } = await billing.getInvoice({
    scope: { projectId: merchant.projectId, merchantId: merchant.id, livemode: false },
    invoiceId,
  });
  return { seller: invoice?.seller, buyer: invoice?.buyer };
}

describe("the seller invoices keep: billing's copy of each project's seller", () => {
  it('an invoice created after a seller change carries the new seller; one created before keeps the old one', async () => {
    const merchant = await registerMerchant(api, 'seller-change');
    await sellerInBilling(merchant, (s) => s.legal_name === null);
    const planId = await planOf(merchant);
    const before = await firstInvoice(merchant, planId);

    await patchMe(merchant, sellerDetailsExample);
    await sellerInBilling(merchant, (s) => s.legal_name === sellerDetailsExample.legal_name);
    const after = await nextInvoice(merchant, before.paid.customerId, planId);

    expect((await partiesOf(merchant, before.invoiceId)).seller).toEqual(sellerMessage(bareSeller(merchant)));
    expect((await partiesOf(merchant, after)).seller).toEqual(
      sellerMessage({
        ...bareSeller(merchant),
        ...sellerDetailsExample,
        name: sellerDetailsExample.legal_name,
      }),
    );
  });

  it('an older seller event, and the latest one delivered again, leave the kept seller as it was; a later one replaces it', async () => {
    const { merchant, event: latest } = await merchantWithSeller('seller-stale', sellerDetailsExample);
    const planId = await planOf(merchant);
    const at = (ms: number) => new Date(Date.parse(latest.data.updated_at) + ms).toISOString();
    const announcing = (name: string, updatedAt: string): EventEnvelope<SellerEvent> => ({
      ...latest,
      id: randomUUID(),
      data: { ...latest.data, seller: { ...latest.data.seller, name, legal_name: name }, updated_at: updatedAt },
    });

    // One at a time, each read before the next, so that each meets the kept copy rather than the
    // other in one batch. A replay carries a message id of its own, which JetStream's
    // de-duplication lets through.
    await events.waitForAcked(SELLER_CONSUMER, await events.publish(latest, `replay-${randomUUID()}`));
    await events.waitForAcked(SELLER_CONSUMER, await events.publish(announcing('Stale Limited', at(-60_000))));
    const kept = await firstInvoice(merchant, planId);
    await events.waitForAcked(SELLER_CONSUMER, await events.publish(announcing('Newer Limited', at(1))));
    const replaced = await nextInvoice(merchant, kept.paid.customerId, planId);

    expect((await partiesOf(merchant, kept.invoiceId)).seller).toEqual(sellerMessage(latest.data.seller));
    expect((await partiesOf(merchant, replaced)).seller).toMatchObject({
      name: 'Newer Limited',
      taxId: sellerDetailsExample.tax_id,
    });
  });

  it('a project billing keeps no seller of yet (a merchant from before the event) gets it from identity with its first invoice', async () => {
    const { merchant, event } = await merchantWithSeller('seller-unknown', sellerDetailsExample);
    // As for a project created before the event existed: billing holds no copy of it.
    await billingDb('DELETE FROM project_sellers WHERE project_id = $1', [merchant.projectId]);

    const { invoiceId } = await firstInvoice(merchant, await planOf(merchant));

    expect((await partiesOf(merchant, invoiceId)).seller).toEqual(sellerMessage(event.data.seller));
    // Identity's answer is kept, as of the merchant's last change: the next invoice reads the copy.
    const kept = await billingDb<{ legal_name: string; updated_at: Date }>(
      'SELECT legal_name, updated_at FROM project_sellers WHERE project_id = $1',
      [merchant.projectId],
    );
    expect(kept.map((k) => [k.legal_name, k.updated_at.toISOString()])).toEqual([
      [sellerDetailsExample.legal_name, event.data.updated_at],
    ]);
  });

  it('a renewal batch across two projects keeps each project its own seller', async () => {
    const accra = { line1: '3 Oxford Road', city: 'Accra', country: 'GH' };
    const sellers = [
      { legal_name: 'Alpha Trading Limited', tax_id: 'A-100' },
      { legal_name: 'Beta Services Limited', address: accra },
    ];
    const merchants = await Promise.all(
      sellers.map(async (details, k) => (await merchantWithSeller(`renewal-${k}`, details)).merchant),
    );
    const subscriptions = await Promise.all(
      merchants.map(async (m) => (await firstInvoice(m, await planOf(m))).paid.subscriptionId),
    );
    const ends = await Promise.all(
      merchants.map(async (m, k) =>
        Date.parse((await get(m, `/subscriptions/${subscriptions[k]}`)).body.current_period_end),
      ),
    );

    // Both projects' test clocks pass the period end in one statement, so billing's scheduler
    // finds both renewals due at once and opens them in one claimed batch.
    await billingDb(
      `INSERT INTO test_clocks (project_id, offset_ms, updated_at) SELECT unnest($1::uuid[]), $2, now()
       ON CONFLICT (project_id) DO UPDATE SET offset_ms = EXCLUDED.offset_ms, updated_at = EXCLUDED.updated_at`,
      [merchants.map((m) => m.projectId), Math.max(...ends) - Date.now() + 60_000],
    );
    const renewals = await Promise.all(
      merchants.map(async (m, k) => {
        const invoices = await waitFor(
          'the renewal invoice',
          () => invoicesOf(m, subscriptions[k]),
          (i) => i.length === 2,
        );
        return (await partiesOf(m, invoices[0].id)).seller;
      }),
    );

    const alpha = 'Alpha Trading Limited';
    const beta = 'Beta Services Limited';
    expect(renewals).toEqual([
      sellerMessage({ ...bareSeller(merchants[0]), name: alpha, legal_name: alpha, tax_id: 'A-100' }),
      { ...sellerMessage({ ...bareSeller(merchants[1]), name: beta, legal_name: beta }), address: accra },
    ]);
  });

  it('a seller event billing cannot read is parked in its parked_events, and the events after it are still kept', async () => {
    const { merchant, event } = await merchantWithSeller('seller-poison', { legal_name: 'Poison Limited' });
    const broken = { ...event, id: randomUUID(), data: { ...event.data, seller: { name: 'No business name' } } };

    const later = new Date(Date.parse(event.data.updated_at) + 1).toISOString();
    const after = { ...event.data, seller: { ...event.data.seller, name: 'After' }, updated_at: later };

    await events.publish(broken);
    await events.publish({ ...event, id: randomUUID(), data: after });

    // Kept while the broken one is still being delivered again (1, 2, 4, 8 s apart).
    const kept = await waitFor(
      'the seller after the broken event',
      () => billingDb<{ name: string }>('SELECT name FROM project_sellers WHERE project_id = $1', [merchant.projectId]),
      (rows) => rows[0]?.name === 'After',
      10_000,
    );
    expect(kept).toEqual([{ name: 'After' }]);
    const parked = await waitFor(
      'the broken event parked',
      () =>
        billingDb<{ consumer: string; deliveries: number; error: string }>(
          'SELECT consumer, deliveries, error FROM parked_events WHERE event_id = $1',
          [broken.id],
        ),
      (rows) => rows.length > 0,
      60_000,
    );
    expect(parked).toEqual([{ consumer: SELLER_CONSUMER, deliveries: 5, error: expect.stringContaining('ZodError') }]);
  }, 90_000);
});

describe('buyer details on customers: address, tax_id, preferred_locale', () => {
  const lagos = customerExample.address;
  const newCustomer = (merchant: RegisteredMerchant, body: Record<string, unknown> = {}) =>
    post(merchant, '/customers', { email: `buyer-${randomUUID().slice(0, 8)}@example.com`, ...body });
  const customerOf = async (merchant: RegisteredMerchant, id: string) =>
    (await get(merchant, `/customers/${id}`)).body.customer;

  it('POST /customers keeps them trimmed, GET reads them back, and customer.created carries them', async () => {
    const merchant = await registerMerchant(api, 'buyer-create');

    const created = await createdBody(
      newCustomer(merchant, {
        address: { ...lagos, line1: `  ${lagos.line1} ` },
        tax_id: ' TIN-0042 ',
        preferred_locale: 'fr',
      }),
    );

    const details = { address: lagos, tax_id: 'TIN-0042', preferred_locale: 'fr' };
    expect(created).toMatchObject(details);
    expect(await customerOf(merchant, created.id)).toMatchObject(details);
    const { envelope } = await events.waitFor<Json>('customer.created', (e) => e.data.id === created.id);
    expect(envelope.data).toMatchObject(details);
    const bare = await createdBody(newCustomer(merchant));
    expect(bare).toMatchObject({ address: null, tax_id: null, preferred_locale: 'en' });
  });

  it('PATCH sets what it is sent and leaves the rest; null clears the address or the tax ID; a new address replaces the old one whole', async () => {
    const merchant = await registerMerchant(api, 'buyer-patch');
    const { id } = await createdBody(
      newCustomer(merchant, { address: lagos, tax_id: 'TIN-1', preferred_locale: 'fr' }),
    );

    const locale = await patch(merchant, `/customers/${id}`, { preferred_locale: 'en' });
    const moved = await patch(merchant, `/customers/${id}`, {
      address: { line1: '3 Oxford Road', city: 'Accra', country: 'GH' },
    });
    const cleared = await patch(merchant, `/customers/${id}`, { tax_id: null });

    expect([locale.status, moved.status, cleared.status]).toEqual([200, 200, 200]);
    expect(locale.body).toMatchObject({ address: lagos, tax_id: 'TIN-1', preferred_locale: 'en' });
    expect(await customerOf(merchant, id)).toMatchObject({
      address: { line1: '3 Oxford Road', line2: null, city: 'Accra', state: null, postal_code: null, country: 'GH' },
      tax_id: null,
      preferred_locale: 'en',
    });
    expect((await patch(merchant, `/customers/${id}`, { address: null })).body.address).toBeNull();
  });

  it('answers 422 with an item for each broken rule, all at once, and saves nothing', async () => {
    const merchant = await registerMerchant(api, 'buyer-invalid');
    const { id } = await createdBody(newCustomer(merchant, { tax_id: 'TIN-1' }));
    const broken = {
      address: { line1: ' ', city: 'Lagos', country: 'ng' },
      tax_id: '9'.repeat(41),
      preferred_locale: 'de',
    };

    const refusedCreate = await newCustomer(merchant, broken);
    const refusedPatch = await patch(merchant, `/customers/${id}`, { ...broken, name: 'Changed' });
    const nullLocale = await patch(merchant, `/customers/${id}`, { preferred_locale: null });

    for (const res of [refusedCreate, refusedPatch]) {
      expect(res.status).toBe(422);
      expect(res.body.detail.map((item: Json) => item.loc)).toEqual([
        ['body', 'address', 'line1'],
        ['body', 'address', 'country'],
        ['body', 'tax_id'],
        ['body', 'preferred_locale'],
      ]);
    }
    expect(nullLocale.status).toBe(422);
    expect(nullLocale.body.detail.map((item: Json) => item.loc)).toEqual([['body', 'preferred_locale']]);
    expect(await customerOf(merchant, id)).toMatchObject({ name: null, tax_id: 'TIN-1', preferred_locale: 'en' });
    expect((await get(merchant, '/customers')).body).toHaveLength(1);
  });

  it('billing refuses the same over gRPC: INVALID_ARGUMENT with the items, for any caller', async () => {
    const merchant = await registerMerchant(api, 'buyer-grpc');
    const scope = { projectId: merchant.projectId, merchantId: merchant.id, livemode: false };

    const refused = await billing
      .createCustomer({
        scope,
        email: `grpc-${randomUUID().slice(0, 8)}@example.com`,
        address: { line1: 'x'.repeat(201), city: 'Lagos', country: 'XX' },
        taxId: '',
        preferredLocale: 'de',
      })
      .then(() => null, readRemoteError);

    expect(refused).toMatchObject({ code: status.INVALID_ARGUMENT });
    expect(refused?.violations.map((v) => v.loc)).toEqual([
      ['body', 'address', 'line1'],
      ['body', 'address', 'country'],
      ['body', 'tax_id'],
      ['body', 'preferred_locale'],
    ]);
  });
});

describe('the buyer invoices keep', () => {
  it("a buyer change after an invoice leaves that invoice's buyer as it was; the next invoice has the new one", async () => {
    const merchant = await registerMerchant(api, 'buyer-change');
    const planId = await planOf(merchant);
    const before = await firstInvoice(merchant, planId);
    const { email, customerId } = before.paid;

    const changed = await patch(merchant, `/customers/${customerId}`, {
      name: 'Ada Obi',
      address: { line1: '3 Oxford Road', city: 'Accra', country: 'GH' },
      tax_id: 'TIN-7',
      preferred_locale: 'fr',
    });
    expect(changed.status).toBe(200);
    const after = await nextInvoice(merchant, customerId, planId);

    expect((await partiesOf(merchant, before.invoiceId)).buyer).toEqual({ email, preferredLocale: 'en' });
    expect((await partiesOf(merchant, after)).buyer).toEqual({
      name: 'Ada Obi',
      email,
      address: { line1: '3 Oxford Road', city: 'Accra', country: 'GH' },
      taxId: 'TIN-7',
      preferredLocale: 'fr',
    });
  });
});
