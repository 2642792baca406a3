/**
 * @lane timing-critical SIGKILLs analytics while it consumes and runs the rebuild beside it
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { isDeepStrictEqual, promisify } from 'node:util';
import type { PromiseClient } from '@billing/platform';
import { analyticsV1 } from '@billing/proto';
import {
  payCheckoutPageInSandbox,
  platformClient,
  queryDatabase,
  readWhenSettled,
  startPlatform,
  type PlatformUnderTest,
} from '@billing/testing';

const REPOSITORY = join(__dirname, '..', '..', '..');
const NGN = 'NGN';
/** Many subscriptions created at once, while analytics is killed in the middle of their events. */
const BURST = 200;

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * The whole platform (docs/api-behaviour.md §25): subscriptions driven through the gateway on a
 * test clock, billing's facts on its events, analytics' figures read over gRPC as the gateway
 * reads them, compared with the figures worked out by hand; then a SIGKILL of analytics in the
 * middle of a burst of events, and a rebuild from billing's history beside the live consumer.
 */
describe('analytics from the events of subscriptions made through the gateway', () => {
  let platform: PlatformUnderTest;
  let analytics: PromiseClient<analyticsV1.AnalyticsServiceClient>;
  let testKey: string;
  let accessToken: string;
  let projectId: string;
  let scope: { projectId: string; merchantId: string; livemode: boolean };
  let monthlyPlan: string;
  let payingCustomer: string;

  async function api(method: string, path: string, body?: unknown, auth: Record<string, string> = {}): Promise<Json> {
    const res = await fetch(`${platform.gatewayUrl}/api/v1${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-api-key': testKey, ...auth },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }

  async function advance(to: string): Promise<void> {
    const res = await api('POST', '/test-clock/advance', { to });
    expect(res.status).toBe(200);
  }

  /** A hosted checkout paid as a payer does: a customer with a saved card and an ACTIVE subscription. */
  async function checkout(planId: string): Promise<{ customerId: string; subscriptionId: string }> {
    const session = await api('POST', '/checkout/sessions', { plan_id: planId });
    expect(session.status).toBe(201);
    await payCheckoutPageInSandbox(
      platform.gatewayUrl,
      session.body.code,
      `payer-${randomUUID().slice(0, 8)}@example.com`,
    );
    const completed = await api('GET', `/checkout/sessions/${session.body.code}`);
    expect(completed.body.status).toBe('COMPLETED');
    return { customerId: completed.body.customer_id, subscriptionId: completed.body.subscription_id };
  }

  const figures = async (from: string, to: string) => {
    const [mrr, revenue, summary] = await Promise.all([
      analytics.getMrrSeries({ scope, currency: NGN, from, to }),
      analytics.getRevenueSeries({ scope, currency: NGN, from, to }),
      analytics.getSummary({ scope, currency: NGN }),
    ]);
    const { asOf: _a, ...summaryFigures } = summary;
    return { mrr: mrr.months, revenue: revenue.months, summary: summaryFigures };
  };

  /** Reads until the figures are `expected` (the consumer is asynchronous); fails with the last ones. */
  async function expectFigures(from: string, to: string, expected: Json, timeoutMs = 60_000): Promise<void> {
    const last = await readWhenSettled(() => figures(from, to), {
      done: (answer) => isDeepStrictEqual(answer, expected),
      quietMs: timeoutMs,
      timeoutMs,
      intervalMs: 250,
    });
    expect(last).toEqual(expected);
  }

  const zero = { new: 0, expansion: 0, contraction: 0, churned: 0, reactivation: 0 };

  beforeAll(async () => {
    platform = await startPlatform({ env: { RENEWAL_POLL_MS: '200' } });
    analytics = await platformClient(platform, 'analytics', analyticsV1.AnalyticsServiceClient);
    const registered = await fetch(`${platform.gatewayUrl}/api/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        email: `analytics-${randomUUID().slice(0, 8)}@example.com`,
        business_name: 'Analytics Ltd',
        password: 'password-123',
      }),
    }).then((res) => res.json() as Promise<Json>);
    testKey = registered.api_keys[0].key;
    accessToken = registered.access_token;
    const projects = await api('GET', '/projects', undefined, { authorization: `Bearer ${registered.access_token}` });
    projectId = projects.body[0].id;
    scope = { projectId, merchantId: registered.id, livemode: false };
  }, 180_000);

  afterAll(async () => {
    analytics?.close();
    await platform?.stop();
  });

  const JANUARY_TO_MARCH = ['2027-01', '2027-03'] as const;
  /** The figures of the first scenario, worked out by hand in its test. */
  let expected: Json;

  it('a trial, a cancellation with a refund and renewals on the test clock give the expected figures', async () => {
    await advance('2027-01-10T10:00:00.000Z');
    monthlyPlan = (await api('POST', '/plans', { name: 'Monthly', amount: 100 })).body.id;
    const trialPlan = (await api('POST', '/plans', { name: 'Trial', amount: 30, trial_period_days: 7 })).body.id;
    // Policies take the key and the token (docs/api-behaviour.md §10).
    const fullRefund = await api(
      'POST',
      '/cancellation-policies',
      { name: 'Full', refund_type: 'FULL' },
      { authorization: `Bearer ${accessToken}` },
    );
    expect(fullRefund.status).toBe(201);

    // Customer 1: a monthly subscription (10,000 kobo a month) and, on its saved card, a trial.
    const first = await checkout(monthlyPlan);
    payingCustomer = first.customerId;
    const trial = await api('POST', '/subscriptions', { customer_id: first.customerId, plan_id: trialPlan });
    expect(trial.body.status).toBe('TRIALING');
    // Customer 2: subscribes and cancels at once with a full refund: it starts and stops in January.
    const second = await checkout(monthlyPlan);
    const cancelled = await api('POST', `/subscriptions/${second.subscriptionId}/cancel`, {
      policy_id: fullRefund.body.id,
    });
    expect(cancelled.body.status).toBe('CANCELLED');
    expect(cancelled.body.refund).toMatchObject({ amount: 100, status: 'PROCESSED' });

    // The trial ends on Jan 17 (charged 3,000), the monthly one renews on Feb 10, the trial's on Feb 17.
    await advance('2027-02-20T10:00:00.000Z');
    expected = {
      mrr: [
        // New: the monthly one (10,000) and the trial once it paid (3,000); the one cancelled in
        // January started and stopped inside the month: no movement.
        { month: '2027-01', mrr: 13_000, ...zero, new: 13_000, activeSubscriptions: 2 },
        { month: '2027-02', mrr: 13_000, ...zero, activeSubscriptions: 2 },
        { month: '2027-03', mrr: 13_000, ...zero, activeSubscriptions: 2 },
      ],
      revenue: [
        { month: '2027-01', gross: 23_000, refunds: 10_000, net: 13_000, tax: 0 },
        { month: '2027-02', gross: 13_000, refunds: 0, net: 13_000, tax: 0 },
        { month: '2027-03', gross: 0, refunds: 0, net: 0, tax: 0 },
      ],
      summary: {
        mrr: 13_000,
        arr: 156_000,
        activeSubscriptions: 2,
        trialingSubscriptions: 0,
        pastDueSubscriptions: 0,
        // Both contributing subscriptions are customer 1's.
        customers: 1,
        arpu: 13_000,
        // The window is Jan 22 to Feb 20: two contributing at its start, none churned or new.
        subscriberChurnRate30d: '0',
        // The two renewals of February.
        netRevenue30d: 13_000,
      },
    };
    await expectFigures(...JANUARY_TO_MARCH, expected);
  }, 120_000);

  const processed = async () =>
    Number(
      (
        await queryDatabase<{ n: string }>(platform.database('analytics'), 'SELECT count(*) AS n FROM processed_events')
      )[0].n,
    );

  it(`analytics SIGKILLed while it consumes the events of ${BURST} new subscriptions: every event counted once`, async () => {
    const before = await processed();
    const subscribe = () => api('POST', '/subscriptions', { customer_id: payingCustomer, plan_id: monthlyPlan });
    const created: Promise<Json>[] = [];
    for (let i = 0; i < BURST / 2; i += 1) created.push(subscribe());
    // Kill it as soon as it has applied some of the burst, while the rest is still being made.
    const deadline = Date.now() + 60_000;
    while ((await processed()) === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await platform.processes.analytics.stop('SIGKILL');
    const atKill = await processed();
    for (let i = BURST / 2; i < BURST; i += 1) created.push(subscribe());
    const answers = await Promise.all(created);
    expect(answers.filter((a) => a.status === 201 && a.body.status === 'ACTIVE')).toHaveLength(BURST);
    await platform.processes.analytics.start();
    // A new channel: the old one is backing off from the killed process's address.
    analytics.close();
    analytics = await platformClient(platform, 'analytics', analyticsV1.AnalyticsServiceClient);

    const burst = BURST * 10_000;
    expected = {
      mrr: [
        expected.mrr[0],
        { month: '2027-02', mrr: 13_000 + burst, ...zero, new: burst, activeSubscriptions: 2 + BURST },
        { month: '2027-03', mrr: 13_000 + burst, ...zero, activeSubscriptions: 2 + BURST },
      ],
      revenue: [
        expected.revenue[0],
        { month: '2027-02', gross: 13_000 + burst, refunds: 0, net: 13_000 + burst, tax: 0 },
        expected.revenue[2],
      ],
      summary: {
        ...expected.summary,
        mrr: 13_000 + burst,
        arr: 12 * (13_000 + burst),
        activeSubscriptions: 2 + BURST,
        arpu: 13_000 + burst,
        netRevenue30d: 13_000 + burst,
      },
    };
    await expectFigures(...JANUARY_TO_MARCH, expected);
    // Applied before the kill and after the restart, each once.
    expect(atKill).toBeGreaterThan(before);
    expect(await processed()).toBeGreaterThan(atKill);
  }, 180_000);

  it('npm run analytics:rebuild gives the same figures as the live model, which then carries on', async () => {
    const live = await figures(...JANUARY_TO_MARCH);
    expect(live).toEqual(expected);
    const processedLive = await processed();
    const { stdout } = await promisify(execFile)(
      'node',
      [join(REPOSITORY, 'services/analytics/dist/rebuild-read-model.js')],
      {
        cwd: REPOSITORY,
        env: { ...process.env, ...platform.env, ...platform.tlsFiles('analytics'), LOG_LEVEL: 'warn' },
      },
    );
    expect(stdout).toMatch(/^analytics rebuild: \d+ event\(s\) read in \d+ page\(s\), \d+ applied\n$/);
    expect(await figures(...JANUARY_TO_MARCH)).toEqual(live);
    // The same events, recorded processed again by the rebuild.
    expect(await processed()).toBe(processedLive);

    // The live consumer goes on: one more subscription is counted once.
    const one = await api('POST', '/subscriptions', { customer_id: payingCustomer, plan_id: monthlyPlan });
    expect(one.body.status).toBe('ACTIVE');
    const after = await (async () => {
      for (let i = 0; i < 200; i += 1) {
        const summary = await analytics.getSummary({ scope, currency: NGN });
        if (summary.activeSubscriptions === 3 + BURST) return summary;
        await new Promise((r) => setTimeout(r, 100));
      }
      return analytics.getSummary({ scope, currency: NGN });
    })();
    expect(after).toMatchObject({ activeSubscriptions: 3 + BURST, mrr: 23_000 + BURST * 10_000 });
  }, 120_000);
});
