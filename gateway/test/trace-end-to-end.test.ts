import { gunzipSync } from 'node:zlib';
import {
  listenLocally,
  payCheckoutPageInSandbox,
  startPlatform,
  type LocalEndpoint,
  type PlatformUnderTest,
} from '@billing/testing';
import { gatewayApi, registerMerchant, type Api } from './support/api';

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

describe('tracing end to end (docs/decisions.md, "One trace per request")', () => {
  let platform: PlatformUnderTest;
  let api: Api;
  let collector: LocalEndpoint | undefined;
  let receiver: LocalEndpoint | undefined;
  const spans: CollectedSpan[] = [];
  /** Webhook POSTs received: the path (one per test's webhook) and the traceparent header. */
  const received: { path: string; traceparent: string }[] = [];
  const exportPaths = new Set<string>();

  beforeAll(async () => {
    // A test OTLP/HTTP collector: every process exports its spans here as JSON.
    collector = await listenLocally((req, body, res) => {
      exportPaths.add(String(req.url));
      if (req.url !== '/v1/traces') return void res.writeHead(404).end();
      const raw = req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;
      const request = JSON.parse(raw.toString('utf8')) as OtlpExport;
      for (const { resource, scopeSpans } of request.resourceSpans) {
        const service = String(attributesOf(resource.attributes)['service.name']);
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
    receiver = await listenLocally((req, _body, res) => {
      received.push({ path: String(req.url), traceparent: String(req.headers.traceparent ?? '') });
      res.writeHead(204).end();
    });
    platform = await startPlatform({
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_BSP_SCHEDULE_DELAY: '200',
        ALLOW_INSECURE_WEBHOOKS: 'true',
        DELIVERY_POLL_MS: '50',
      },
      // Every process loads the OpenTelemetry SDK first (about 1.3 s of CPU each, seven at once).
      startTimeoutMs: 150_000,
    });
    api = gatewayApi(platform.gatewayUrl);
  }, 180_000);
  afterAll(async () => {
    await platform?.stop();
    await receiver?.close();
    await collector?.close();
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
    await waitFor(() => received.some((r) => r.path === path), `the webhook POST to ${path}`);
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
      () => Boolean(request() && webhookPost() && Object.values(hops()).every(Boolean)),
      'the spans of the trace',
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
    await waitFor(() => Boolean(attempt()), 'the spans from the renewal charge to the delivery attempt');
    expect(child('billing', renewal(), (s) => s.name === 'POST')).toBeDefined();
    expect(attempt()!.attributes).toMatchObject({
      'webhook.id': hook.body.id,
      'webhook.event': 'subscription.renewed',
    });
  });
});

async function waitFor(done: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
