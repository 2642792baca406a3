import {
  listenLocally,
  PLATFORM_PROCESSES,
  scrapeMetrics,
  startPlatform,
  type LocalEndpoint,
  type MetricsScrape,
  type PlatformUnderTest,
  type ServiceName,
} from '@billing/testing';
import { gatewayApi, registerMerchant, UUID, type Api, type RegisteredMerchant } from './support/api';
import { payHostedCheckout } from './support/hosted-checkout';
import { waitFor } from './support/wait';

/**
 * Prometheus metrics of a running platform (docs/deployment.md, "Metrics"): every process
 * answers GET /metrics on its own METRICS_PORT, and a renewal, a webhook delivery and a
 * rate-limit refusal move the counters that an SRE watches.
 */
describe('GET /metrics of every process after a renewal and a webhook delivery', () => {
  let platform: PlatformUnderTest;
  let api: Api;
  let merchant: RegisteredMerchant;
  let receiver: LocalEndpoint | undefined;
  const received: string[] = [];

  beforeAll(async () => {
    platform = await startPlatform({
      env: {
        ALLOW_INSECURE_WEBHOOKS: 'true',
        DELIVERY_POLL_MS: '50',
        RENEWAL_POLL_MS: '200',
        // Two failed logins per email, so that a third attempt is a rate-limit refusal.
        LOGIN_FAILURES_PER_15_MIN: '2',
      },
    });
    api = gatewayApi(platform.gatewayUrl);
    merchant = await registerMerchant(api, 'metrics');
    receiver = await listenLocally((_req, body, res) => {
      received.push(body.toString('utf8'));
      res.writeHead(204).end();
    });
  });
  afterAll(async () => {
    await receiver?.close();
    await platform?.stop();
  });

  const scrapeAll = async (): Promise<Record<ServiceName, MetricsScrape>> =>
    Object.fromEntries(
      await Promise.all(PLATFORM_PROCESSES.map(async (p) => [p.name, await scrapeMetrics(platform, p.name)] as const)),
    ) as Record<ServiceName, MetricsScrape>;

  it('counts renewals, charges, deliveries, gRPC calls per method, HTTP requests per route and refusals; shows the backlogs', async () => {
    const before = await scrapeAll();
    const moved = (after: Record<ServiceName, MetricsScrape>, service: ServiceName, name: string, labels = {}) =>
      after[service].sum(name, labels) - before[service].sum(name, labels);

    const hook = await api('POST', '/api/v1/webhooks', {
      apiKey: merchant.testKey,
      token: merchant.token,
      body: { url: `${receiver!.url}/hooks`, events: ['subscription.renewed'] },
    });
    expect(hook.status).toBe(201);
    const plan = await api('POST', '/api/v1/plans', {
      apiKey: merchant.testKey,
      body: { name: 'Monthly', amount: 30 },
    });
    expect(plan.status).toBe(201);
    const { subscriptionId, customerId } = await payHostedCheckout(
      api,
      platform.gatewayUrl,
      merchant.testKey,
      plan.body.id,
    );
    // A yearly subscription of the same customer (it does not renew below): its first charge, on the saved card.
    const yearly = await api('POST', '/api/v1/plans', {
      apiKey: merchant.testKey,
      body: { name: 'Yearly', amount: 300, interval: 'yearly' },
    });
    expect(yearly.status).toBe(201);
    const second = await api('POST', '/api/v1/subscriptions', {
      apiKey: merchant.testKey,
      body: { customer_id: customerId, plan_id: yearly.body.id },
    });
    expect(second.status).toBe(201);
    const started = await api('GET', `/api/v1/subscriptions/${subscriptionId}`, { apiKey: merchant.testKey });
    expect(started.status).toBe(200);

    // The renewal: the test clock a minute past the period end.
    const to = new Date(Date.parse(started.body.current_period_end) + 60_000).toISOString();
    const advanced = await api('POST', '/api/v1/test-clock/advance', { apiKey: merchant.testKey, body: { to } });
    expect(advanced.status).toBe(200);
    const renewed = await api('GET', `/api/v1/subscriptions/${subscriptionId}`, { apiKey: merchant.testKey });
    expect(renewed.body.current_period_start).toBe(started.body.current_period_end);
    await waitFor(
      'subscription.renewed at the receiver',
      async () => received.filter((body) => body.includes('"subscription.renewed"')).length,
      (n) => n === 1,
    );

    // A rate-limit refusal: the third failed login of one email.
    for (const expected of [401, 401, 429]) {
      const login = await api('POST', '/api/v1/auth/login', { body: { email: merchant.email, password: 'wrong' } });
      expect(login.status).toBe(expected);
    }

    // The delivery's attempt is counted once recorded, just after the receiver answered.
    const succeeded = { outcome: 'succeeded' };
    await waitFor(
      'the delivery attempt counted',
      async () => (await scrapeMetrics(platform, 'notification')).sum('webhook_delivery_attempts_total', succeeded),
      (n) => n - before.notification.sum('webhook_delivery_attempts_total', succeeded) === 1,
    );
    const after = await scrapeAll();

    // Billing: one renewal, paid. Charges: the checkout payment that paid the first invoice, the
    // yearly subscription's first charge and the renewal.
    expect(moved(after, 'billing', 'billing_renewals_total', { outcome: 'renewed', livemode: 'false' })).toBe(1);
    expect(moved(after, 'billing', 'billing_renewals_total', { outcome: 'past_due' })).toBe(0);
    expect(moved(after, 'billing', 'billing_charges_total', { outcome: 'succeeded', livemode: 'false' })).toBe(3);
    expect(moved(after, 'billing', 'billing_charges_total', { outcome: 'failed' })).toBe(0);

    // Notification: the delivery and its latency.
    expect(moved(after, 'notification', 'webhook_delivery_attempts_total', succeeded)).toBe(1);
    expect(moved(after, 'notification', 'webhook_delivery_attempt_duration_seconds_count', succeeded)).toBe(1);
    expect(after.notification.sum('webhook_delivery_attempt_duration_seconds_sum', succeeded)).toBeGreaterThan(0);

    // gRPC per method, server side, on each service that was called.
    const advanceCall = { grpc_service: 'billing.v1.BillingService', grpc_method: 'AdvanceTestClock' };
    expect(moved(after, 'billing', 'grpc_server_handled_total', { ...advanceCall, grpc_code: 'OK' })).toBe(1);
    expect(moved(after, 'billing', 'grpc_server_handling_seconds_count', { ...advanceCall, grpc_code: 'OK' })).toBe(1);
    expect(
      moved(after, 'notification', 'grpc_server_handled_total', {
        grpc_service: 'notification.v1.NotificationService',
        grpc_method: 'CreateWebhook',
        grpc_code: 'OK',
      }),
    ).toBe(1);
    expect(
      moved(after, 'identity', 'grpc_server_handled_total', { grpc_service: 'identity.v1.IdentityService' }),
    ).toBeGreaterThanOrEqual(3);

    // HTTP per route template, method and status class; never a path with an id in it.
    const route = (method: string, template: string, status_class: string) => ({
      method,
      route: template,
      status_class,
    });
    expect(
      moved(after, 'gateway', 'http_server_requests_total', route('POST', '/api/v1/test-clock/advance', '2xx')),
    ).toBe(1);
    expect(
      moved(
        after,
        'gateway',
        'http_server_requests_total',
        route('GET', '/api/v1/subscriptions/:subscription_id', '2xx'),
      ),
    ).toBe(2);
    expect(moved(after, 'gateway', 'http_server_requests_total', route('POST', '/api/v1/auth/login', '4xx'))).toBe(3);
    expect(
      moved(after, 'gateway', 'http_server_request_duration_seconds_count', route('POST', '/api/v1/plans', '2xx')),
    ).toBe(2);
    expect(moved(after, 'gateway', 'http_server_requests_total', route('POST', '/api/v1/subscriptions', '2xx'))).toBe(
      1,
    );
    const routes = after.gateway.series('http_server_requests_total').map((s) => s.labels.route);
    expect(routes.filter((r) => r.includes(subscriptionId) || UUID.test(r.split('/').pop() ?? ''))).toEqual([]);

    // Rate-limit refusals by limit kind.
    expect(moved(after, 'gateway', 'gateway_rate_limit_refusals_total', { limit: 'login_failures' })).toBe(1);

    // Scrape-time gauges: outbox backlog and age, consumer lag, scheduler backlogs.
    for (const service of ['billing', 'catalog', 'identity'] as const) {
      expect(after[service].series('outbox_pending_events')).toHaveLength(1);
      expect(after[service].series('outbox_oldest_pending_age_seconds')).toHaveLength(1);
    }
    const lag = after.notification.series('jetstream_consumer_pending_messages', {
      stream: platform.eventsStream,
      consumer: 'notification',
    });
    expect(lag).toHaveLength(1);
    expect(lag[0].value).toBeGreaterThanOrEqual(0);
    expect(after.notification.series('jetstream_consumer_ack_pending_messages')).toHaveLength(1);
    const backlog = (service: ServiceName) =>
      after[service]
        .series('scheduler_due_items')
        .map((s) => s.labels.scheduler)
        .sort();
    expect(backlog('billing')).toEqual(['billing_dunning', 'billing_renewals']);
    expect(backlog('catalog')).toEqual(['checkout_expiry']);
    expect(backlog('notification')).toEqual(['webhook_deliveries', 'webhook_retries']);
    // The renewal was worked off: nothing is left due.
    expect(after.billing.sum('scheduler_due_items', { scheduler: 'billing_renewals' })).toBe(0);

    // Every process has the Node.js process metrics, labelled with its service.
    for (const { name } of PLATFORM_PROCESSES) {
      expect(after[name].series('process_cpu_user_seconds_total', { service: name })).toHaveLength(1);
    }
  });
});
