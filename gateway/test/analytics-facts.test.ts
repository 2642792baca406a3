import { status, type ServiceError } from '@grpc/grpc-js';
import type { AnalyticsFact } from '@billing/analytics';
import { createPromiseClient, readRemoteError, type EventEnvelope, type PromiseClient } from '@billing/platform';
import { billingV1 } from '@billing/proto';
import { platformEvents, sharedPlatform, type SharedPlatform } from '@billing/testing';
import { createdBody, gatewayApi, merchantCalls, registerMerchant, type Api, type Json } from './support/api';
import { payHostedCheckout } from './support/hosted-checkout';
import { waitFor } from './support/wait';

interface RecordedEvent {
  seq: number;
  envelope: EventEnvelope<Json> & { analytics?: AnalyticsFact };
}

/**
 * The facts billing records on its events for the analytics read model (docs/api-behaviour.md
 * §25), made through the gateway with every process real and read back as the analytics service
 * reads them for a rebuild: billing's ListAnalyticsEvents, called with the analytics service's
 * certificate. One merchant (its own project and test clock) for the whole story.
 */
describe('analytics facts on billing events, read through ListAnalyticsEvents', () => {
  let platform: SharedPlatform;
  let api: Api;
  let billing: PromiseClient<billingV1.BillingServiceClient>;

  beforeAll(async () => {
    platform = await sharedPlatform();
    api = gatewayApi(platform.gatewayUrl);
    billing = createPromiseClient(
      billingV1.BillingServiceClient,
      platform.env.BILLING_GRPC_URL,
      20_000,
      platform.grpcCredentials('analytics'),
    );
  });
  afterAll(async () => {
    billing?.close();
    await platform?.stop();
  });

  const { post, get } = merchantCalls(() => api);

  /** The recorded events with facts after `from`, paged by after_seq as a rebuild pages them. */
  async function recordedEvents(from = 0, pageSize = 5000): Promise<RecordedEvent[]> {
    const all: RecordedEvent[] = [];
    for (let afterSeq = from; ;) {
      const { events } = await billing.listAnalyticsEvents({ afterSeq, limit: pageSize });
      all.push(
        ...events.map((e) => ({ seq: e.seq, envelope: JSON.parse(e.envelopeJson) as RecordedEvent['envelope'] })),
      );
      if (events.length < pageSize) return all;
      afterSeq = events[events.length - 1].seq;
    }
  }

  const refusalOf = (call: Promise<unknown>) =>
    call.then(
      () => null,
      (err: ServiceError) => readRemoteError(err),
    );

  it("puts MRR, payment and refund facts on one merchant's events, one refund fact per refund", async () => {
    // What the shared platform recorded before this merchant existed is read once, not at every look.
    const from = (await recordedEvents()).at(-1)?.seq ?? 0;
    const m = await registerMerchant(api, 'analytics-facts');
    const created = (path: string, body: Json) => createdBody(post(m, path, body));

    // (a) A monthly plan with a FOREVER 25% coupon and an inclusive 7.5% VAT.
    const monthly = (await created('/plans', { name: 'Monthly', amount: 10000 })).id;
    const premium = (await created('/plans', { name: 'Premium', amount: 20000 })).id;
    const vat = (await created('/tax-rates', { display_name: 'VAT', percentage: 7.5, inclusive: true })).id;
    await created('/coupons', { code: 'QUARTER', percent_off: 25, duration: 'FOREVER' });
    // (b) An annual plan with a FOREVER amount_off coupon.
    const annual = (await created('/plans', { name: 'Annual', amount: 1200, interval: 'annually' })).id;
    await created('/coupons', { code: 'TENOFF', amount_off: 10, currency: 'NGN', duration: 'FOREVER' });
    // (c) A plan with a trial.
    const trialPlan = (await created('/plans', { name: 'Trial', amount: 5000, trial_period_days: 7 })).id;
    // A customer with a saved card: a checkout of a plan whose trial outlasts the test.
    const cardCheck = (await created('/plans', { name: 'Card check', amount: 1, trial_period_days: 730 })).id;
    const payer = await payHostedCheckout(api, platform.gatewayUrl, m.testKey, cardCheck, 'analytics');

    const a = await created('/subscriptions', {
      customer_id: payer.customerId,
      plan_id: monthly,
      coupon_code: 'QUARTER',
      tax_rate_ids: [vat],
    });
    const b = await created('/subscriptions', {
      customer_id: payer.customerId,
      plan_id: annual,
      coupon_code: 'TENOFF',
    });
    const c = await created('/subscriptions', { customer_id: payer.customerId, plan_id: trialPlan });
    expect([a.status, b.status, c.status]).toEqual(['ACTIVE', 'ACTIVE', 'TRIALING']);
    const [aFirstInvoice] = (await get(m, `/invoices?subscription_id=${a.id}`)).body;
    const [bInvoice] = (await get(m, `/invoices?subscription_id=${b.id}`)).body;

    // (c) The trial ends (the project's clock moved past it): its first charge makes it ACTIVE.
    const afterTrial = new Date(Date.parse(c.trial_end) + 60_000).toISOString();
    expect((await post(m, '/test-clock/advance', { to: afterTrial })).status).toBe(200);
    await waitFor(
      'the trial subscription to become ACTIVE',
      async () => (await get(m, `/subscriptions/${c.id}`)).body.status,
      (s) => s === 'ACTIVE',
    );
    const [cInvoice] = (await get(m, `/invoices?subscription_id=${c.id}`)).body;

    // (d) An upgrade, charged at once.
    const upgraded = await post(m, `/subscriptions/${a.id}/change-plan`, { plan_id: premium });
    expect([upgraded.status, upgraded.body.plan_id]).toEqual([200, premium]);
    const prorationInvoice = upgraded.body.latest_invoice;
    expect(prorationInvoice.status).toBe('PAID');

    // The merchant's credit notes on A's first invoice: one to the card (a refund), one to the balance.
    const cardNote = await created(`/invoices/${aFirstInvoice.id}/credit-notes`, {
      amount: 100,
      reason: 'PRODUCT_UNSATISFACTORY',
      refund_to: 'CARD',
    });
    await created(`/invoices/${aFirstInvoice.id}/credit-notes`, {
      amount: 50,
      reason: 'ORDER_CHANGE',
      refund_to: 'BALANCE',
    });

    // (e) B cancelled now under a FULL refund policy: its refund has an ORDER_CHANGE note too.
    const policy = await api('POST', '/api/v1/cancellation-policies', {
      apiKey: m.testKey,
      token: m.token,
      body: { name: 'Full', refund_type: 'FULL' },
    });
    expect(policy.status).toBe(201);
    const cancelled = await post(m, `/subscriptions/${b.id}/cancel`, { policy_id: policy.body.id });
    expect(cancelled.status).toBe(200);
    const cancellationRefund = cancelled.body.refund;
    expect(cancellationRefund).toMatchObject({ amount: 1190, currency: 'NGN' });

    const ofMerchant = (events: RecordedEvent[]) => events.filter((e) => e.envelope.project_id === m.projectId);
    const recorded = ofMerchant(
      await waitFor(
        'refund.processed of the cancellation',
        () => recordedEvents(from),
        (events) => ofMerchant(events).some((e) => e.envelope.event === 'refund.processed'),
      ),
    );

    // Only events with facts are listed, in seq order, each fact of the kind its event carries.
    expect(recorded.map((e) => e.seq)).toEqual([...recorded.map((e) => e.seq)].sort((x, y) => x - y));
    for (const { envelope } of recorded) {
      const kind = envelope.event.startsWith('subscription.')
        ? 'subscription_mrr'
        : envelope.event === 'invoice.paid'
          ? 'invoice_payment'
          : 'refund';
      expect([envelope.event, envelope.analytics?.kind]).toEqual([envelope.event, kind]);
      expect(envelope.data).not.toHaveProperty('analytics');
    }

    /** [event, status, contributing, mrr] of a subscription's events, in order. */
    const mrrSteps = (subscriptionId: string) =>
      recorded.flatMap(({ envelope: { event, analytics: f } }) =>
        f?.kind === 'subscription_mrr' && f.subscription_id === subscriptionId
          ? [[event, f.status, f.contributing, f.mrr]]
          : [],
      );
    // A: 10,000.00 less 25% = 7,500.00, inclusive VAT out: 7,500 x 7.5 / 107.5 = 523.26, so 6,976.74.
    // Upgraded to 20,000.00: 15,000.00 after the coupon, VAT 15,000 x 7.5 / 107.5 = 1,046.51, so 13,953.49.
    expect(mrrSteps(a.id)).toEqual([
      ['subscription.created', 'ACTIVE', true, 697674],
      ['subscription.updated', 'ACTIVE', true, 1395349],
    ]);
    // B: (1,200.00 - 10.00) / 12 = 99.1666... -> 99.17; cancelled: 0.
    expect(mrrSteps(b.id)).toEqual([
      ['subscription.created', 'ACTIVE', true, 9917],
      ['subscription.cancelled', 'CANCELLED', false, 0],
    ]);
    // C: nothing while TRIALING; 5,000.00 a month once its first charge made it ACTIVE.
    expect(mrrSteps(c.id)).toEqual([
      ['subscription.created', 'TRIALING', false, 0],
      ['subscription.trial_will_end', 'TRIALING', false, 0],
      ['subscription.renewed', 'ACTIVE', true, 500000],
    ]);
    expect(mrrSteps(payer.subscriptionId)).toEqual([['subscription.created', 'TRIALING', false, 0]]);
    const subscriptionFact = recorded.find((e) => e.envelope.event === 'subscription.created')!.envelope.analytics;
    expect(subscriptionFact).toEqual({
      kind: 'subscription_mrr',
      subscription_id: payer.subscriptionId,
      customer_id: payer.customerId,
      currency: 'NGN',
      status: 'TRIALING',
      contributing: false,
      mrr: 0,
    });

    const payments = recorded.flatMap(({ envelope: { analytics: f } }) => (f?.kind === 'invoice_payment' ? [f] : []));
    const paymentOf = (invoiceId: string) => payments.filter((p) => p.invoice_id === invoiceId);
    // A's first invoice: 7,500.00 charged, of which 523.26 inclusive VAT.
    expect(paymentOf(aFirstInvoice.id)).toEqual([
      {
        kind: 'invoice_payment',
        invoice_id: aFirstInvoice.id,
        customer_id: payer.customerId,
        currency: 'NGN',
        charged: 750000,
        tax: 52326,
      },
    ]);
    // B: 1,190.00 charged, untaxed; C's first charge at its trial's end: 5,000.00.
    expect(paymentOf(bInvoice.id)).toEqual([expect.objectContaining({ charged: 119000, tax: 0 })]);
    expect(paymentOf(cInvoice.id)).toEqual([expect.objectContaining({ charged: 500000, tax: 0 })]);
    // The upgrade's proration invoice: what the card paid for it, with its own tax.
    expect(paymentOf(prorationInvoice.id)).toEqual([
      expect.objectContaining({
        charged: Math.round(prorationInvoice.amount_paid * 100),
        tax: Math.round(prorationInvoice.tax * 100),
      }),
    ]);
    expect(payments).toHaveLength(4);

    // One fact per refund: the card note's on its credit_note.created, the cancellation's on its
    // refund.processed (its ORDER_CHANGE note, like the BALANCE note, carries none, so is not listed).
    const refunds = recorded.flatMap(({ envelope: { event, analytics: f } }) =>
      f?.kind === 'refund' ? [[event, f]] : [],
    );
    expect(refunds).toEqual([
      ['credit_note.created', { kind: 'refund', refund_id: cardNote.refund_id, currency: 'NGN', amount: 10000 }],
      ['refund.processed', { kind: 'refund', refund_id: cancellationRefund.id, currency: 'NGN', amount: 119000 }],
    ]);
    expect(recorded.filter((e) => e.envelope.event === 'credit_note.created')).toHaveLength(1);

    // Each listed envelope is the one published on the stream, facts included.
    const stream = await platformEvents(platform);
    try {
      const processed = recorded.find((e) => e.envelope.event === 'refund.processed')!.envelope;
      const published = await stream.waitFor('refund.processed', (e) => e.id === processed.id);
      expect(published.envelope).toEqual(processed);
    } finally {
      await stream.close();
    }
  });

  it('pages by after_seq in seq order: two pages of 3 are the first 6', async () => {
    const six = await billing.listAnalyticsEvents({ afterSeq: 0, limit: 6 });
    const first = await billing.listAnalyticsEvents({ afterSeq: 0, limit: 3 });
    const second = await billing.listAnalyticsEvents({ afterSeq: first.events[2].seq, limit: 3 });
    expect(six.events).toHaveLength(6);
    expect([...first.events, ...second.events]).toEqual(six.events);
    const seqs = six.events.map((e) => e.seq);
    expect(seqs).toEqual([...new Set(seqs)].sort((x, y) => x - y));
    // Past the last one: an empty page.
    const last = (await recordedEvents()).at(-1)!.seq;
    expect((await billing.listAnalyticsEvents({ afterSeq: last, limit: 10 })).events).toEqual([]);
  });

  it('refuses a limit outside 1..5000 with INVALID_ARGUMENT saying so', async () => {
    for (const limit of [0, 5001]) {
      const refused = await refusalOf(billing.listAnalyticsEvents({ afterSeq: 0, limit }));
      expect(refused?.code).toBe(status.INVALID_ARGUMENT);
      expect(refused?.detail).toContain('limit must be between 1 and 5000');
    }
    expect((await billing.listAnalyticsEvents({ afterSeq: 0, limit: 5000 })).events.length).toBeGreaterThan(0);
  });

  it("is the analytics service's alone: the gateway's certificate, which may call the rest of billing, is PERMISSION_DENIED", async () => {
    const asGateway = createPromiseClient(
      billingV1.BillingServiceClient,
      platform.env.BILLING_GRPC_URL,
      20_000,
      platform.grpcCredentials('gateway'),
    );
    try {
      const refused = await refusalOf(asGateway.listAnalyticsEvents({ afterSeq: 0, limit: 10 }));
      expect(refused?.code).toBe(status.PERMISSION_DENIED);
      expect(refused?.detail).toContain('gateway may not call billing.v1.BillingService/ListAnalyticsEvents');
      // And the analytics certificate calls nothing else of billing.
      const other = await refusalOf(
        billing.getTaxRate({
          scope: { projectId: '00000000-0000-4000-8000-000000000001', merchantId: '', livemode: false },
          taxRateId: '00000000-0000-4000-8000-000000000002',
        }),
      );
      expect(other?.code).toBe(status.PERMISSION_DENIED);
    } finally {
      asGateway.close();
    }
  });
});
