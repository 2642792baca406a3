import type { SandboxControlsClient } from '@billing/payments';
import { queryDatabase, type SharedPlatform, sharedPlatform } from '@billing/testing';
import { gatewayApi, registerMerchant, type Api, type Json, type RegisteredMerchant } from './support/api';
import { payHostedCheckout } from './support/hosted-checkout';
import { plus, sandboxControlsOf } from './support/test-clock';

const DAY_MS = 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;
const T0 = '2027-06-01T09:00:00.000Z';

/**
 * One invoice-payment module (services/billing/src/usecases/invoice-payment): a single charge's
 * success is a batch of one through the same code as the scheduler's batch. Two subscriptions
 * whose renewal charge was declined are paid on their second attempt, one by POST
 * /invoices/{id}/pay (one charge), the other by the scheduler's dunning retry (a batch), and a
 * third renews on its first attempt in the scheduler's renewal batch: each paid invoice, its
 * subscription and their events must come out the same.
 */
describe('invoice payment: a single charge and a batch record the same', () => {
  let platform: SharedPlatform;
  let api: Api;
  let sandbox: SandboxControlsClient;
  let m: RegisteredMerchant;

  beforeAll(async () => {
    platform = await sharedPlatform();
    api = gatewayApi(platform.gatewayUrl);
    sandbox = sandboxControlsOf(platform);
    m = await registerMerchant(api, 'invoice-payment');
  });
  afterAll(async () => {
    await platform?.stop();
  });

  const post = (path: string, body: unknown = {}) => api('POST', `/api/v1${path}`, { apiKey: m.testKey, body });
  const get = (path: string) => api('GET', `/api/v1${path}`, { apiKey: m.testKey });
  const advance = async (to: string) => {
    const res = await post('/test-clock/advance', { to });
    expect(res.status).toBe(200);
  };
  const setCard = async (customerId: string, behavior: string) =>
    expect((await post(`/test-helpers/customers/${customerId}/card`, { behavior })).status).toBe(200);
  const renewalInvoiceOf = async (subscriptionId: string): Promise<Json> => {
    const res = await get(`/invoices?subscription_id=${subscriptionId}&limit=100`);
    expect(res.status).toBe(200);
    const invoices = [...res.body].sort((a: Json, b: Json) => Date.parse(a.period_start) - Date.parse(b.period_start));
    expect(invoices).toHaveLength(2);
    return invoices[1];
  };
  /** The events about an invoice or a subscription, in the order they were recorded. */
  const eventsAbout = (id: string, since = 0) =>
    queryDatabase<{ event_type: string; payload: Json; seq: string }>(
      platform.database('billing'),
      `SELECT event_type, payload, seq FROM outbox_events WHERE payload->'data'->>'id' = $1 AND seq > $2 ORDER BY seq`,
      [id, since],
    );
  const lastSeq = async () =>
    Number(
      (
        await queryDatabase<{ seq: string }>(platform.database('billing'), 'SELECT max(seq) AS seq FROM outbox_events')
      )[0].seq,
    );
  /** A paid invoice's fields that do not depend on which invoice or when. */
  const paidShape = (invoice: Json) => ({
    status: invoice.status,
    attempt_count: invoice.attempt_count,
    amount_paid_is_amount_due: invoice.amount_paid === invoice.amount_due,
    amount_due: invoice.amount_due,
    next_payment_attempt: invoice.next_payment_attempt,
    paid: typeof invoice.paid_at === 'string',
  });
  /** An event's payload keys and the values that must match across paths (not ids, e-mails, times). */
  const eventShape = (event: { event_type: string; payload: Json }) => {
    const data = event.payload.data as Json;
    return {
      type: event.event_type,
      keys: Object.keys(data).sort(),
      status: data.status,
      amount: data.amount,
      amount_due: data.amount_due ?? null,
    };
  };

  it('pay-now (one charge) and a dunning retry (a batch) leave the same invoice, status and events; a first-attempt renewal too', async () => {
    await advance(T0);
    const planRes = await post('/plans', { name: 'Weekly', amount: 100, interval: 'weekly' });
    expect(planRes.status).toBe(201);
    const checkout = (label: string) => payHostedCheckout(api, platform.gatewayUrl, m.testKey, planRes.body.id, label);
    const single = await checkout('single');
    const batch = await checkout('batch');
    const renews = await checkout('renews');
    await setCard(single.customerId, 'decline');
    await setCard(batch.customerId, 'decline');

    // The period end: all three renewed by the scheduler; two declined (PAST_DUE, attempt 1).
    const beforeRenewal = await lastSeq();
    await advance(plus(T0, 7 * DAY_MS + HOUR_MS));
    for (const s of [single, batch]) {
      expect((await get(`/subscriptions/${s.subscriptionId}`)).body.status).toBe('PAST_DUE');
      expect((await renewalInvoiceOf(s.subscriptionId)).attempt_count).toBe(1);
    }
    const before = await lastSeq();

    // Second attempt: one invoice paid now by the API, the other by the scheduler's retry a day later.
    await setCard(single.customerId, 'succeed');
    await setCard(batch.customerId, 'succeed');
    const singleOpen = await renewalInvoiceOf(single.subscriptionId);
    const paid = await post(`/invoices/${singleOpen.id}/pay`);
    expect(paid.status).toBe(200);
    await advance(plus(T0, 8 * DAY_MS + 2 * HOUR_MS));

    const singleInvoice = await renewalInvoiceOf(single.subscriptionId);
    const batchInvoice = await renewalInvoiceOf(batch.subscriptionId);
    const renewedInvoice = await renewalInvoiceOf(renews.subscriptionId);
    expect(paidShape(singleInvoice)).toEqual({
      status: 'PAID',
      attempt_count: 2,
      amount_paid_is_amount_due: true,
      amount_due: 100,
      next_payment_attempt: null,
      paid: true,
    });
    expect(paidShape(batchInvoice)).toEqual(paidShape(singleInvoice));
    expect(paidShape(renewedInvoice)).toEqual({ ...paidShape(singleInvoice), attempt_count: 1 });
    expect(paid.body).toMatchObject({ status: 'PAID', attempt_count: 2, amount_paid: 100 });

    // The provider's own ledger: the second attempt's reference charged once, on both paths.
    for (const [s, invoice] of [
      [single, singleInvoice],
      [batch, batchInvoice],
    ] as const) {
      const charges = (await sandbox.ledger({ email: s.email })).transactions.filter(
        (t) => t.channel === 'authorization',
      );
      expect(charges.map((c) => [c.status, c.reference])).toEqual([
        ['failed', `inv-${invoice.id.replace(/-/g, '')}-1`],
        ['success', `inv-${invoice.id.replace(/-/g, '')}-2`],
      ]);
    }

    for (const s of [single, batch, renews]) {
      expect((await get(`/subscriptions/${s.subscriptionId}`)).body.status).toBe('ACTIVE');
    }
    // What the payment recorded: invoice.paid, then subscription.renewed, the same on both paths.
    const afterRetry = async (s: { subscriptionId: string }, invoice: Json) => [
      ...(await eventsAbout(invoice.id, before)),
      ...(await eventsAbout(s.subscriptionId, before)),
    ];
    const singleEvents = await afterRetry(single, singleInvoice);
    const batchEvents = await afterRetry(batch, batchInvoice);
    expect(singleEvents.map((e) => e.event_type)).toEqual(['invoice.paid', 'subscription.renewed']);
    expect(batchEvents.map(eventShape)).toEqual(singleEvents.map(eventShape));
    expect(singleEvents.map(eventShape)).toEqual([
      expect.objectContaining({ type: 'invoice.paid', status: 'PAID' }),
      expect.objectContaining({ type: 'subscription.renewed', status: 'ACTIVE' }),
    ]);
    // invoice.paid in the recorded order of each path: paid before the subscription moved on.
    for (const events of [singleEvents, batchEvents]) {
      expect(Number(events[0].seq)).toBeLessThan(Number(events[1].seq));
    }

    // A first-attempt renewal in the scheduler's batch: the same invoice.paid and renewed events.
    const renewedEvents = [
      ...(await eventsAbout(renewedInvoice.id, beforeRenewal)),
      ...(await eventsAbout(renews.subscriptionId, beforeRenewal)),
    ];
    expect(renewedEvents.map(eventShape)).toEqual([
      expect.objectContaining({ type: 'invoice.created', status: 'OPEN' }),
      eventShape(singleEvents[0]),
      eventShape(singleEvents[1]),
    ]);
  });
});
