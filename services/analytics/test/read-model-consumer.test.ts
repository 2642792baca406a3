import { randomUUID } from 'node:crypto';
import { status as GrpcStatus } from '@grpc/grpc-js';
import type { AnalyticsFact, SubscriptionStatus } from '@billing/analytics';
import { createPromiseClient, type EventEnvelope, type PromiseClient } from '@billing/platform';
import { analyticsV1 } from '@billing/proto';
import {
  createReplica,
  platformClient,
  platformEvents,
  queryDatabase,
  startPlatform,
  type PlatformEvents,
  type PlatformUnderTest,
} from '@billing/testing';

/**
 * The analytics process alone on a fresh stream (docs/api-behaviour.md §25): events carrying
 * the facts billing writes are published as billing's relay does, and the figures are read
 * over gRPC with the gateway's certificate. One scenario whose every figure is worked out by
 * hand below; redeliveries, events without facts, a malformed fact, another mode and another
 * currency change none of them.
 */
describe('analytics keeps its read model from the event stream', () => {
  let platform: PlatformUnderTest;
  let events: PlatformEvents;
  let analytics: PromiseClient<analyticsV1.AnalyticsServiceClient>;
  const projectId = randomUUID();
  const scope = { projectId, merchantId: randomUUID(), livemode: false };
  const published: EventEnvelope[] = [];

  const envelope = (event: string, createdAt: string, analytics?: AnalyticsFact, livemode = false): EventEnvelope => ({
    id: randomUUID(),
    event,
    data: {},
    created_at: createdAt,
    project_id: projectId,
    livemode,
    ...(analytics ? { analytics } : {}),
  });
  const subscription = (
    id: string,
    customer: string,
    status: SubscriptionStatus,
    mrr: number,
    currency = 'NGN',
  ): AnalyticsFact => {
    const contributing = status === 'ACTIVE' || status === 'PAST_DUE';
    return {
      kind: 'subscription_mrr',
      subscription_id: id,
      customer_id: customer,
      currency,
      status,
      contributing,
      mrr: contributing ? mrr : 0,
    };
  };

  beforeAll(async () => {
    platform = await startPlatform({
      only: ['analytics'],
      env: { EVENT_MAX_DELIVERIES: '2', EVENT_REDELIVERY_DELAY_MS: '50' },
    });
    events = await platformEvents(platform);
    analytics = await platformClient(platform, 'analytics', analyticsV1.AnalyticsServiceClient);
    // Test mode runs on the project's test clock: as_of 2027-03-20 12:00 UTC.
    await analytics.advanceTestClock({ projectId, to: '2027-03-20T12:00:00.000Z' });
    const scenario: EventEnvelope[] = [
      envelope('subscription.created', '2027-01-10T09:00:00.000Z', subscription('sub_a', 'cus_1', 'ACTIVE', 10_000)),
      envelope('invoice.paid', '2027-01-10T09:00:00.000Z', {
        kind: 'invoice_payment',
        invoice_id: 'in_1',
        customer_id: 'cus_1',
        currency: 'NGN',
        charged: 10_750,
        tax: 750,
      }),
      envelope('subscription.created', '2027-01-15T00:00:00.000Z', subscription('sub_b', 'cus_2', 'TRIALING', 0)),
      // Exactly at February's first instant: a February change.
      envelope('subscription.updated', '2027-02-01T00:00:00.000Z', subscription('sub_b', 'cus_2', 'ACTIVE', 5_000)),
      envelope('subscription.past_due', '2027-02-10T00:00:00.000Z', subscription('sub_a', 'cus_1', 'PAST_DUE', 10_000)),
      envelope('subscription.created', '2027-02-25T00:00:00.000Z', subscription('sub_c', 'cus_1', 'ACTIVE', 3_000)),
      envelope('invoice.paid', '2027-02-25T00:00:00.000Z', {
        kind: 'invoice_payment',
        invoice_id: 'in_2',
        customer_id: 'cus_1',
        currency: 'NGN',
        charged: 3_000,
        tax: 0,
      }),
      envelope('customer.created', '2027-03-01T00:00:00.000Z'),
      envelope('subscription.cancelled', '2027-03-05T00:00:00.000Z', subscription('sub_a', 'cus_1', 'CANCELLED', 0)),
      envelope('refund.processed', '2027-03-06T00:00:00.000Z', {
        kind: 'refund',
        refund_id: 'rf_1',
        currency: 'NGN',
        amount: 1_000,
      }),
      envelope('subscription.updated', '2027-03-10T00:00:00.000Z', subscription('sub_c', 'cus_1', 'ACTIVE', 4_500)),
      // Another currency and the other mode of the same project: not in these figures.
      envelope(
        'subscription.created',
        '2027-03-11T00:00:00.000Z',
        subscription('sub_usd', 'cus_3', 'ACTIVE', 7_000, 'USD'),
      ),
      envelope(
        'subscription.created',
        '2027-03-11T00:00:00.000Z',
        subscription('sub_live', 'cus_4', 'ACTIVE', 9_000),
        true,
      ),
    ];
    for (const e of scenario) {
      await events.publish(e);
      published.push(e);
    }
    // The cancellation and a payment again, as a replay would publish them (another message id,
    // and the payment twice in a row, so likely in one batch): each applied once.
    await events.publish(scenario[8], `replay-${scenario[8].id}`);
    await events.publish(scenario[6], `replay-1-${scenario[6].id}`);
    const lastSeq = await events.publish(scenario[6], `replay-2-${scenario[6].id}`);
    // A malformed fact: parked after its deliveries, and nothing else held back.
    const poison = envelope('subscription.updated', '2027-03-12T00:00:00.000Z');
    (poison as { analytics: object }).analytics = { kind: 'subscription_mrr', subscription_id: 'sub_x' };
    published.push(poison);
    await events.publish(poison);
    await events.waitForAcked('analytics', lastSeq + 1, 30_000);
  }, 180_000);

  afterAll(async () => {
    analytics?.close();
    await events?.close();
    await platform?.stop();
  });

  it('GetMrrSeries: every month with its MRR at its end and its movements; after as_of, the state at as_of', async () => {
    const series = await analytics.getMrrSeries({ scope, currency: 'NGN', from: '2026-12', to: '2027-04' });
    // The test clock runs on from where it was moved.
    expect(series.asOf.startsWith('2027-03-20T12:0')).toBe(true);
    const zero = { new: 0, expansion: 0, contraction: 0, churned: 0, reactivation: 0 };
    expect(series.months).toEqual([
      { month: '2026-12', mrr: 0, ...zero, activeSubscriptions: 0 },
      { month: '2027-01', mrr: 10_000, ...zero, new: 10_000, activeSubscriptions: 1 },
      // sub_b (5,000, after its trial) and sub_c (3,000) are new; sub_a past due still counts.
      { month: '2027-02', mrr: 18_000, ...zero, new: 8_000, activeSubscriptions: 3 },
      { month: '2027-03', mrr: 9_500, ...zero, expansion: 1_500, churned: 10_000, activeSubscriptions: 2 },
      { month: '2027-04', mrr: 9_500, ...zero, activeSubscriptions: 2 },
    ]);
  });

  it('GetRevenueSeries: gross, refunds, net and tax per month', async () => {
    const revenue = await analytics.getRevenueSeries({ scope, currency: 'NGN', from: '2027-01', to: '2027-04' });
    expect(revenue.months).toEqual([
      { month: '2027-01', gross: 10_750, refunds: 0, net: 10_750, tax: 750 },
      { month: '2027-02', gross: 3_000, refunds: 0, net: 3_000, tax: 0 },
      { month: '2027-03', gross: 0, refunds: 1_000, net: -1_000, tax: 0 },
      { month: '2027-04', gross: 0, refunds: 0, net: 0, tax: 0 },
    ]);
  });

  it('GetSummary: the totals now and the 30-day window (2027-02-19 to as_of)', async () => {
    const summary = await analytics.getSummary({ scope, currency: 'NGN' });
    expect(summary.asOf.startsWith('2027-03-20T12:0')).toBe(true);
    expect(summary).toEqual({
      asOf: summary.asOf,
      mrr: 9_500,
      arr: 114_000,
      activeSubscriptions: 2,
      trialingSubscriptions: 0,
      pastDueSubscriptions: 0,
      // cus_2 (sub_b) and cus_1 (sub_c).
      customers: 2,
      arpu: 4_750,
      // sub_a churned; sub_a and sub_b contributed on 2027-02-19; sub_c is new: 1 / 3.
      subscriberChurnRate30d: '0.3333',
      netRevenue30d: 2_000,
    });
  });

  it('keeps currencies and modes apart', async () => {
    const usd = await analytics.getSummary({ scope, currency: 'USD' });
    expect(usd).toMatchObject({ mrr: 7_000, activeSubscriptions: 1, customers: 1 });
    const live = await analytics.getSummary({ scope: { ...scope, livemode: true }, currency: 'NGN' });
    expect(live).toMatchObject({ mrr: 9_000, activeSubscriptions: 1, customers: 1 });
    const other = await analytics.getSummary({ scope: { ...scope, projectId: randomUUID() }, currency: 'NGN' });
    expect(other).toMatchObject({ mrr: 0, activeSubscriptions: 0, customers: 0, subscriberChurnRate30d: '0' });
  });

  it('records each event once, ignores events without facts, and parks a malformed fact', async () => {
    const database = platform.database('analytics');
    const processed = await queryDatabase<{ event_id: string }>(database, 'SELECT event_id FROM processed_events');
    const poison = published[published.length - 1];
    const withFacts = published.filter((e) => e.analytics !== undefined && e !== poison);
    expect(processed.map((row) => row.event_id).sort()).toEqual(withFacts.map((e) => e.id).sort());
    const parked = await queryDatabase<{ event_id: string; deliveries: number }>(
      database,
      'SELECT event_id, deliveries FROM parked_events',
    );
    expect(parked).toEqual([{ event_id: poison.id, deliveries: 2 }]);
  });

  it('answers INVALID_ARGUMENT for a refused range or currency', async () => {
    const refused = (call: Promise<unknown>) =>
      call.then(
        () => null,
        (err: { code: number; details: string }) => ({ code: err.code, details: err.details }),
      );
    expect(await refused(analytics.getMrrSeries({ scope, currency: 'NGN', from: '2027-05', to: '2027-04' }))).toEqual({
      code: GrpcStatus.INVALID_ARGUMENT,
      details: 'from 2027-05 is after to 2027-04',
    });
    expect(
      await refused(analytics.getRevenueSeries({ scope, currency: 'NGN', from: '2024-01', to: '2027-01' })),
    ).toEqual({
      code: GrpcStatus.INVALID_ARGUMENT,
      details: '37 months is more than 36',
    });
    expect(await refused(analytics.getMrrSeries({ scope, currency: 'NGN', from: '2027-1', to: '2027-04' }))).toEqual({
      code: GrpcStatus.INVALID_ARGUMENT,
      details: '"2027-1" is not a month written YYYY-MM',
    });
    expect(await refused(analytics.getSummary({ scope, currency: 'ngn' }))).toEqual({
      code: GrpcStatus.INVALID_ARGUMENT,
      details: 'currency "ngn" is not three upper-case letters',
    });
  });

  it('moves its test clock forward only, with no step limit', async () => {
    const far = await analytics.advanceTestClock({ projectId, to: '2031-01-01T00:00:00.000Z' });
    expect(far.now).toBe('2031-01-01T00:00:00.000Z');
    const back = await analytics.advanceTestClock({ projectId, to: '2030-01-01T00:00:00.000Z' }).catch((e) => e);
    expect(back.code).toBe(GrpcStatus.FAILED_PRECONDITION);
    const summary = await analytics.getSummary({ scope, currency: 'NGN' });
    // Nothing in the window any more; the totals are the same.
    expect(summary).toMatchObject({ mrr: 9_500, subscriberChurnRate30d: '0', netRevenue30d: 0 });
    expect(summary.asOf.startsWith('2031-01-01T00:00:0')).toBe(true);
  });

  it('one replica consumes at a time; another takes over when it dies, and nothing is applied twice', async () => {
    const replica = await createReplica(platform, 'analytics', { LOG_LEVEL: 'info' });
    await replica.process.start();
    const second = createPromiseClient(
      analyticsV1.AnalyticsServiceClient,
      `127.0.0.1:${replica.port}`,
      20_000,
      platform.grpcCredentials('gateway'),
    );
    try {
      // It answers queries from the same read model while the first replica consumes.
      expect(await second.getSummary({ scope, currency: 'NGN' })).toMatchObject({ mrr: 9_500, activeSubscriptions: 2 });
      expect(replica.process.output).not.toContain('holds the consumer lock');
      await platform.processes.analytics.stop('SIGKILL');
      const seq = await events.publish(
        envelope('subscription.created', '2031-01-01T00:00:00.000Z', subscription('sub_d', 'cus_5', 'ACTIVE', 2_000)),
      );
      await events.waitForAcked('analytics', seq, 60_000);
      expect(replica.process.output).toContain('holds the consumer lock');
      expect(await second.getSummary({ scope, currency: 'NGN' })).toMatchObject({
        mrr: 11_500,
        activeSubscriptions: 3,
        customers: 3,
      });
    } finally {
      second.close();
      await replica.process.stop();
    }
  }, 120_000);
});
