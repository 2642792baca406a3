import { gunzipSync } from 'node:zlib';
import {
  listenLocally,
  metricsNeededFromProcesses,
  payCheckoutPageInSandbox,
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

/** One span as the OTLP/HTTP JSON exporter sends it (ids in hex), with its resource's service.name. */
interface CollectedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, string | number | boolean>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpExport {
  resourceSpans: {
    resource: { attributes: OtlpAttribute[] };
    scopeSpans: {
      spans: { traceId: string; spanId: string; parentSpanId?: string; name: string; attributes?: OtlpAttribute[] }[];
    }[];
  }[];
}

const attributesOf = (list: OtlpAttribute[] = []) =>
  Object.fromEntries(
    list.map(({ key, value }) => [
      key,
      value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? '')),
    ]),
  );

/**
 * What an SRE sees of a running platform, on one platform of every process with tracing on (its
 * start is the costly part: every process loads the OpenTelemetry SDK): one trace per request
 * end to end (docs/decisions.md, "One trace per request") and the Prometheus metrics of every
 * process (docs/deployment.md, "Metrics").
 */
let platform: PlatformUnderTest;
let collector: LocalEndpoint | undefined;
/** Every span the processes exported, and the paths they exported to. */
const spans: CollectedSpan[] = [];
const exportPaths = new Set<string>();
/** The resource each service exported its spans under, by service.name. */
const resources = new Map<string, Record<string, string | number | boolean>>();

beforeAll(async () => {
  // A test OTLP/HTTP collector: every process exports its spans here as JSON.
  collector = await listenLocally((req, body, res) => {
    exportPaths.add(String(req.url));
    if (req.url !== '/v1/traces') return void res.writeHead(404).end();
    const raw = req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;
    const request = JSON.parse(raw.toString('utf8')) as OtlpExport;
    for (const { resource, scopeSpans } of request.resourceSpans) {
      const service = String(attributesOf(resource.attributes)['service.name']);
      resources.set(service, attributesOf(resource.attributes));
      for (const span of scopeSpans.flatMap((s) => s.spans)) {
        spans.push({
          service,
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? '',
          name: span.name,
          attributes: attributesOf(span.attributes),
        });
      }
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  platform = await startPlatform({
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_BSP_SCHEDULE_DELAY: '200',
      // An operator's own resource attributes, which every process adds to its spans.
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=observability-test',
      ALLOW_INSECURE_WEBHOOKS: 'true',
      DELIVERY_POLL_MS: '50',
      RENEWAL_POLL_MS: '200',
      // Two failed logins per email, so that a third attempt is a rate-limit refusal.
      LOGIN_FAILURES_PER_15_MIN: '2',
    },
    // Every process loads the OpenTelemetry SDK first (about 1.3 s of CPU each, seven at once).
    startTimeoutMs: 150_000,
  });
}, 180_000);
afterAll(async () => {
  await platform?.stop();
  await collector?.close();
});

describe('tracing end to end (docs/decisions.md, "One trace per request")', () => {
  let api: Api;
  let receiver: LocalEndpoint | undefined;
  /** Webhook POSTs received: the path (one per test's webhook) and the traceparent header. */
  const received: { path: string; traceparent: string }[] = [];

  beforeAll(async () => {
    receiver = await listenLocally((req, _body, res) => {
      received.push({ path: String(req.url), traceparent: String(req.headers.traceparent ?? '') });
      res.writeHead(204).end();
    });
    api = gatewayApi(platform.gatewayUrl);
  });
  afterAll(async () => {
    await receiver?.close();
  });

  /** A new merchant with a test-mode webhook of one event to the receiver's `path`. */
  const merchantWithWebhook = async (label: string, path: string, event: string) => {
    const merchant = await registerMerchant(api, label);
    const hook = await api('POST', '/api/v1/webhooks', {
      apiKey: merchant.testKey,
      token: merchant.token,
      body: { url: `${receiver!.url}${path}`, events: [event] },
    });
    expect(hook.status).toBe(201);
    return { merchant, hook };
  };

  /** The trace a webhook POST to `path` carried on (the test's webhook was delivered once). */
  const deliveredTrace = async (path: string) => {
    await waitFor(`the webhook POST to ${path}`, async () => received.some((r) => r.path === path), Boolean);
    const posts = received.filter((r) => r.path === path);
    expect(posts).toHaveLength(1);
    const { traceparent } = posts[0];
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const traceId = traceparent.split('-')[1];
    const inTrace = () => spans.filter((s) => s.traceId === traceId);
    return {
      traceparent,
      trace: {
        spans: inTrace,
        find: (service: string, match: (s: CollectedSpan) => boolean) =>
          inTrace().find((s) => s.service === service && match(s)),
      },
    };
  };

  it('creating a customer yields one trace from the gateway to the webhook POST, across gRPC, the outbox and NATS', async () => {
    const { merchant, hook } = await merchantWithWebhook('traced', '/hooks', 'customer.created');
    // A key the gateway has never seen, so it asks identity (it caches the keys it has checked).
    const key = await api('POST', '/api/v1/api-keys', {
      token: merchant.token,
      body: { project_id: merchant.projectId, name: 'traced', is_live: false },
    });
    expect(key.status).toBe(201);

    const customer = await api('POST', '/api/v1/customers', {
      apiKey: key.body.key,
      body: { email: 'traced@example.com' },
    });
    expect(customer.status).toBe(201);

    // The webhook POST carries the trace on; its trace id is the request's.
    const { traceparent, trace } = await deliveredTrace('/hooks');
    const request = () =>
      trace.find('gateway', (s) => s.parentSpanId === '' && s.attributes['http.route'] === '/api/v1/customers');
    const attempt = () => trace.find('notification', (s) => s.name === 'webhook delivery attempt');
    const webhookPost = () =>
      trace.find(
        'notification',
        (s) => s.parentSpanId === attempt()?.spanId && s.attributes['http.request.method'] === 'POST',
      );
    // Every hop, each in its own process, under the one trace id. Each process exports its spans
    // on its own schedule, so billing's may arrive after notification's: wait for all of them.
    const hops = () => {
      const publish = trace.find(
        'billing',
        (s) => s.name.startsWith('publish ') && s.name.endsWith('.customer.created'),
      );
      const customerCreation = trace.find('billing', (s) => s.name === 'grpc.billing.v1.BillingService/CreateCustomer');
      // The provider call (the customer at the sandbox provider) is a span, continued by the provider.
      const providerCall = trace.find(
        'billing',
        (s) => s.parentSpanId === customerCreation?.spanId && s.name === 'POST',
      );
      return {
        apiKeyCheck: trace.find('identity', (s) => s.name === 'grpc.identity.v1.IdentityService/VerifyApiKey'),
        customerCreation,
        providerCall,
        providerServer: trace.find('sandbox-provider', (s) => s.parentSpanId === providerCall?.spanId),
        publish,
        processing: trace.find(
          'notification',
          (s) => s.name.startsWith('process ') && s.parentSpanId === publish?.spanId,
        ),
      };
    };
    await waitFor(
      'the spans of the trace',
      async () => Boolean(request() && webhookPost() && Object.values(hops()).every(Boolean)),
      Boolean,
    );
    const { apiKeyCheck, customerCreation, providerCall, providerServer, publish, processing } = hops();
    expect({ apiKeyCheck, customerCreation, providerCall, providerServer, publish, processing }).toEqual({
      apiKeyCheck: expect.objectContaining({ service: 'identity' }),
      customerCreation: expect.objectContaining({ service: 'billing' }),
      providerCall: expect.objectContaining({ service: 'billing' }),
      providerServer: expect.objectContaining({ service: 'sandbox-provider' }),
      publish: expect.objectContaining({ service: 'billing' }),
      processing: expect.objectContaining({ service: 'notification' }),
    });
    // The delivery attempt continues the consumer's span and names the delivery, never its secret.
    expect(attempt()).toMatchObject({
      parentSpanId: processing!.spanId,
      attributes: {
        'webhook.id': hook.body.id,
        'webhook.event': 'customer.created',
        'webhook.attempt': 1,
        'webhook.delivery_status': 'SUCCEEDED',
        'http.response.status_code': 204,
      },
    });
    expect(JSON.stringify(trace.spans())).not.toContain(hook.body.secret);
    // The webhook POST's span is the one whose context the receiver got.
    expect(traceparent.split('-')[2]).toBe(webhookPost()!.spanId);
    // The request is the trace's only root: nothing of it started a trace of its own.
    expect(trace.spans().filter((s) => s.parentSpanId === '')).toEqual([request()]);
    // Traces only: no OTLP metrics or logs, which the collector of deploy/compose.yaml does not take.
    expect([...exportPaths]).toEqual(['/v1/traces']);
    expect(spans.filter((s) => s.parentSpanId === '' && s.attributes['http.route'] === '/api/v1/customers')).toEqual([
      request(),
    ]);
  });

  it('starts its own trace for a request that brings a traceparent from the internet (the edge continues none)', async () => {
    const merchant = await registerMerchant(api, 'foreign-trace');
    const foreignTraceId = '0af7651916cd43dd8448eb211c80319c';
    const requestRoots = () =>
      spans.filter(
        (s) => s.service === 'gateway' && s.parentSpanId === '' && s.attributes['http.route'] === '/api/v1/customers',
      );
    const before = requestRoots().length;
    const res = await fetch(`${platform.gatewayUrl}/api/v1/customers`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': merchant.testKey,
        traceparent: `00-${foreignTraceId}-b7ad6b7169203331-01`,
        tracestate: 'vendor=foreign',
      },
      body: JSON.stringify({ email: 'foreign-trace@example.com' }),
    });
    expect(res.status).toBe(201);
    // The request's span is the root of a trace of the platform's own...
    await waitFor('the request span', async () => requestRoots().length > before, Boolean);
    // ...and nothing joined the sender's trace.
    expect(spans.filter((s) => s.traceId === foreignTraceId)).toEqual([]);
  });

  it('a renewal is a span of its own, and the renewed webhook continues it', async () => {
    const { merchant, hook } = await merchantWithWebhook('traced-renewal', '/renewals', 'subscription.renewed');
    const plan = await api('POST', '/api/v1/plans', {
      apiKey: merchant.testKey,
      body: { name: 'Monthly', amount: 100, interval: 'monthly' },
    });
    const session = await api('POST', '/api/v1/checkout/sessions', {
      apiKey: merchant.testKey,
      body: { plan_id: plan.body.id },
    });
    await payCheckoutPageInSandbox(platform.gatewayUrl, session.body.code, 'renewing@example.com');
    const { subscription_id: subscriptionId } = (
      await api('GET', `/api/v1/checkout/sessions/${session.body.code}`, { apiKey: merchant.testKey })
    ).body;
    const now = (await api('GET', '/api/v1/test-clock', { apiKey: merchant.testKey })).body.now;
    const advanced = await api('POST', '/api/v1/test-clock/advance', {
      apiKey: merchant.testKey,
      body: { to: new Date(new Date(now).getTime() + 32 * 86_400_000).toISOString() },
    });
    expect(advanced.status).toBe(200);

    const { trace } = await deliveredTrace('/renewals');
    // The renewal charge of this subscription, its provider call, and the event's way from it to
    // the delivery attempt: publish, process, attempt.
    const renewal = () =>
      trace.find(
        'billing',
        (s) => s.name === 'renewal charge' && s.attributes['billing.subscription_id'] === subscriptionId,
      );
    const child = (service: string, parent: CollectedSpan | undefined, match: (s: CollectedSpan) => boolean) =>
      parent && trace.find(service, (s) => s.parentSpanId === parent.spanId && match(s));
    const publish = () => child('billing', renewal(), (s) => /^publish .*\.subscription\.renewed$/.test(s.name));
    const processing = () => child('notification', publish(), (s) => s.name.startsWith('process '));
    const attempt = () => child('notification', processing(), (s) => s.name === 'webhook delivery attempt');
    await waitFor('the spans from the renewal charge to the delivery attempt', async () => Boolean(attempt()), Boolean);
    expect(child('billing', renewal(), (s) => s.name === 'POST')).toBeDefined();
    expect(attempt()!.attributes).toMatchObject({
      'webhook.id': hook.body.id,
      'webhook.event': 'subscription.renewed',
    });
  });

  it("labels each process's spans with its service, the operator's OTEL_RESOURCE_ATTRIBUTES, its host and its process", async () => {
    // The processes the traces above went through have exported by now.
    await waitFor(
      'spans of the five processes',
      async () => [...resources.keys()],
      (services) =>
        ['gateway', 'identity', 'billing', 'sandbox-provider', 'notification'].every((s) => services.includes(s)),
    );
    for (const [service, attributes] of resources) {
      expect({ service, attributes }).toEqual({
        service,
        attributes: expect.objectContaining({
          'service.name': service,
          'deployment.environment.name': 'observability-test',
          'host.name': expect.any(String),
          'process.pid': expect.any(Number),
        }),
      });
    }
  });
});

/**
 * Prometheus metrics of a running platform (docs/deployment.md, "Metrics"): every process
 * answers GET /metrics on its own METRICS_PORT, and a renewal, a webhook delivery and a
 * rate-limit refusal move the counters that an SRE watches.
 */
describe('GET /metrics of every process after a renewal and a webhook delivery', () => {
  let api: Api;
  let merchant: RegisteredMerchant;
  let receiver: LocalEndpoint | undefined;
  const received: string[] = [];

  beforeAll(async () => {
    api = gatewayApi(platform.gatewayUrl);
    merchant = await registerMerchant(api, 'metrics');
    receiver = await listenLocally((_req, body, res) => {
      received.push(body.toString('utf8'));
      res.writeHead(204).end();
    });
  });
  afterAll(async () => {
    await receiver?.close();
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
    expect(backlog('notification')).toEqual(['customer_emails', 'webhook_deliveries', 'webhook_retries']);
    // The renewal was worked off: nothing is left due.
    expect(after.billing.sum('scheduler_due_items', { scheduler: 'billing_renewals' })).toBe(0);

    // Every process has the Node.js process metrics, labelled with its service.
    for (const { name } of PLATFORM_PROCESSES) {
      expect(after[name].series('process_cpu_user_seconds_total', { service: name })).toHaveLength(1);
    }
  });

  // After the traffic of the test above: a hosted checkout, a first charge on a saved card, a
  // renewal and a webhook delivery.
  it('times provider calls by operation and outcome; counts relay publishes; shows pools, NATS connections and parked events', async () => {
    const after = await scrapeAll();
    const sandboxCall = (operation: string, outcome = 'success') => ({ provider: 'sandbox', operation, outcome });

    // Billing charged the saved card twice (the yearly subscription's first charge, the renewal);
    // catalog started the hosted checkout's payment. No call failed, and the error series are
    // there at 0 from the start.
    expect(
      after.billing.sum('payment_provider_request_duration_seconds_count', sandboxCall('charge_authorization')),
    ).toBeGreaterThanOrEqual(2);
    expect(
      after.billing.sum('payment_provider_request_duration_seconds_sum', sandboxCall('charge_authorization')),
    ).toBeGreaterThan(0);
    expect(
      after.catalog.sum('payment_provider_request_duration_seconds_count', { provider: 'sandbox' }),
    ).toBeGreaterThanOrEqual(1);
    for (const service of ['billing', 'catalog'] as const) {
      expect(
        after[service].series('payment_provider_errors_total', sandboxCall('charge_authorization', 'unreachable')),
      ).toHaveLength(1);
      expect(after[service].sum('payment_provider_errors_total')).toBe(0);
      const outcomes = new Set(
        after[service].series('payment_provider_request_duration_seconds_count').map((s) => s.labels.outcome),
      );
      expect([...outcomes]).toEqual(['success']);
      // Never an id or a path in a label.
      for (const series of after[service].series('payment_provider_request_duration_seconds_count')) {
        expect(Object.keys(series.labels).sort()).toEqual(['operation', 'outcome', 'provider', 'service']);
      }
    }

    // The outbox relays published the events of the checkout, the charges and the renewal.
    expect(after.billing.sum('outbox_relay_published_events_total')).toBeGreaterThan(0);
    for (const service of ['billing', 'catalog', 'identity'] as const) {
      expect(after[service].series('outbox_relay_publish_failures_total')).toHaveLength(1);
      expect(after[service].sum('outbox_relay_publish_failures_total')).toBe(0);
    }

    // Each process's database pool (documents has no database) and NATS connection.
    const servedBy = (name: string) =>
      PLATFORM_PROCESSES.filter((p) => after[p.name].series(name).length > 0).map((p) => p.name);
    expect(servedBy('db_pool_connections_max').sort()).toEqual(
      PLATFORM_PROCESSES.map((p) => p.name)
        .filter((name) => name !== 'documents')
        .sort(),
    );
    for (const service of servedBy('db_pool_connections_max')) {
      const [max] = after[service].series('db_pool_connections_max');
      expect(max.labels.database).toMatch(new RegExp(`_${service.replace('-', '_')}$`));
      expect(max.value).toBeGreaterThanOrEqual(1);
      expect(after[service].sum('db_pool_connections_in_use')).toBeLessThanOrEqual(max.value);
      expect(after[service].series('db_pool_connections_idle')).toHaveLength(1);
      expect(after[service].sum('db_pool_pending_acquires')).toBe(0);
    }
    expect(servedBy('nats_client_connected')).toEqual(
      expect.arrayContaining(['gateway', 'identity', 'catalog', 'billing', 'notification', 'analytics']),
    );
    for (const service of servedBy('nats_client_connected')) {
      expect(after[service].series('nats_client_connected').map((s) => s.value)).toEqual([1]);
      expect(after[service].sum('nats_client_reconnects_total')).toBe(0);
    }

    // Every event consumer's parked events, 0: nothing was parked.
    const parked = (service: ServiceName) =>
      after[service].series('parked_events').map((s) => [s.labels.consumer, s.value]);
    expect(parked('notification')).toEqual([['notification', 0]]);
    expect(parked('analytics')).toHaveLength(1);
    expect(parked('billing')).toHaveLength(1);
    expect([...parked('analytics'), ...parked('billing')].every(([, value]) => value === 0)).toBe(true);
  });

  it('serves every metric that the alerts, SLO rules and dashboards of k8s/components/monitoring select', async () => {
    const scrapes = await scrapeAll();
    const served = new Set(Object.values(scrapes).flatMap((scrape) => scrape.samples.map((s) => s.name)));
    const needed = metricsNeededFromProcesses();
    expect(needed.size).toBeGreaterThan(25);
    // Histograms are selected by their series (`_bucket`, `_count`), which are what a process serves.
    expect(needed.has('payment_provider_request_duration_seconds_bucket')).toBe(true);
    const missing = [...needed]
      .filter(([name]) => !served.has(name))
      .map(([name, sources]) => `${name} (${sources.join('; ')})`);
    expect(missing).toEqual([]);
  });
});
