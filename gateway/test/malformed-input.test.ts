import fc from 'fast-check';
import { createLogger } from '@billing/platform';
import { type SharedPlatform, sharedPlatform } from '@billing/testing';
import { ApiKeyCache } from '../src/auth/api-key-cache';
import { PlanReadCache } from '../src/cache/plan-read-cache';
import { RateLimits } from '../src/middleware/rate-limit';
import { PROVIDER_WEBHOOK_PATH } from '../src/proxy/provider-webhook.proxy';
import { createApp } from '../src/server';
import { gatewayApi, registerMerchant, type Api, type RegisteredMerchant } from './support/api';
import { payHostedCheckout } from './support/hosted-checkout';
import {
  answerProblem,
  operationsOf,
  requestsFor,
  type Fixtures,
  type OpenApiDocument,
  type Operation,
} from './support/openapi-requests';
import { sendBytes, sendRaw } from './support/raw-http';

/** Fixed, so a failure is reproduced by running the file again; printed with every failure. */
const SEED = 1712;
/** Runs per operation: 68 operations x 24 runs took 24 to 45 s here with other suites running. */
const RUNS_PER_OPERATION = 24;

// The shared platform's limits are far above this suite's bursts: it measures input handling, not 429s.
let platform: SharedPlatform;
let api: Api;
let merchant: RegisteredMerchant;
let planId: string;

beforeAll(async () => {
  platform = await sharedPlatform();
  api = gatewayApi(platform.gatewayUrl);
  merchant = await registerMerchant(api, 'malformed');
  const plan = await api('POST', '/api/v1/plans', {
    apiKey: merchant.testKey,
    body: { name: 'Metered', amount: 100, usage_unit_amount: 2 },
  });
  if (plan.status !== 201) throw new Error(`plan: ${plan.status} ${plan.text}`);
  planId = plan.body.id;
  // A whole platform starts here, on a machine other suites may be loading too.
}, 300_000);

afterAll(() => platform?.stop());

const post = (path: string, body: unknown, key = merchant.testKey) => api('POST', path, { apiKey: key, body });

describe('malformed paths', () => {
  it('answers a bad percent-escape in any path with 404 {"detail"}', async () => {
    const cases: [string, Record<string, string>][] = [
      ['/api/v1/plans/%E0%A4%A', { 'x-api-key': merchant.testKey }],
      ['/api/v1/plans/%', { 'x-api-key': merchant.testKey }],
      ['/api/v1/subscriptions/%zz/usage/summary', { 'x-api-key': merchant.testKey }],
      ['/api/v1/api-keys/%C0%80', { authorization: `Bearer ${merchant.token}` }],
      ['/api/v1/%E0%A4%A', {}],
      ['/%E0%A4%A', {}],
    ];
    for (const [path, headers] of cases) {
      const method = path.startsWith('/api/v1/api-keys') ? 'PATCH' : 'GET';
      const res = await sendRaw(platform.gatewayUrl, { method, path, headers });
      expect([path, res.status, JSON.parse(res.text)]).toEqual([path, 404, { detail: expect.any(String) }]);
    }
  });
});

describe('deeply nested JSON', () => {
  const nested = (depth: number): unknown => {
    let value: unknown = 'bottom';
    for (let i = 0; i < depth; i++) value = { a: value };
    return value;
  };
  /** As JSON text: JSON.stringify itself overflows its stack a few thousand levels down. */
  const nestedText = (depth: number) => `${'{"a":'.repeat(depth)}"bottom"${'}'.repeat(depth)}`;

  it('refuses a body nested deeper than 32 levels with a 422 json_too_deep item', async () => {
    for (const depth of [33, 300, 5000]) {
      // The body is one level, metadata another.
      const res = await api('POST', '/api/v1/customers', {
        apiKey: merchant.testKey,
        raw: `{"email": "deep@example.com", "metadata": {"k": ${nestedText(depth - 2)}}}`,
      });
      expect([depth, res.status]).toEqual([depth, 422]);
      expect(res.body.detail).toEqual([
        {
          loc: ['body'],
          msg: 'JSON should be nested at most 32 levels deep',
          type: 'json_too_deep',
          ctx: { max_depth: 32 },
        },
      ]);
    }
    const arrays = await sendRaw(platform.gatewayUrl, {
      method: 'POST',
      path: '/api/v1/plans',
      headers: { 'x-api-key': merchant.testKey, 'content-type': 'application/json' },
      body: `{"name": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
    });
    expect(arrays.status).toBe(422);
    expect(JSON.parse(arrays.text).detail[0].type).toBe('json_too_deep');
  });

  it('takes JSON nested exactly 32 levels, and brackets inside strings do not count', async () => {
    const deepest = await post('/api/v1/customers', {
      email: 'deep-ok@example.com',
      // 32 levels in all: the body, metadata and 30 below it.
      metadata: { k: nested(30), brackets: '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[{{{{{{{{{{' },
    });
    expect(deepest.status).toBe(201);
    expect(deepest.body.metadata.brackets).toMatch(/^\[+\{+$/);
  });
});

describe('usage quantities', () => {
  let subscriptionId: string;
  beforeAll(async () => {
    // Not metered: quantities up to 18 digits are valid text, and on a metered plan one this
    // large would bill more than a record may (docs/api-behaviour.md §9), a refusal of its own.
    const flat = await api('POST', '/api/v1/plans', {
      apiKey: merchant.testKey,
      body: { name: 'Flat', amount: 100 },
    });
    if (flat.status !== 201) throw new Error(`plan: ${flat.status} ${flat.text}`);
    subscriptionId = (await payHostedCheckout(api, platform.gatewayUrl, merchant.testKey, flat.body.id)).subscriptionId;
  }, 60_000);

  const recordRaw = (raw: string) =>
    api('POST', `/api/v1/subscriptions/${subscriptionId}/usage`, { apiKey: merchant.testKey, raw });

  it('refuses a quantity written with an exponent, as a string or a JSON number, with 422 at body.quantity', async () => {
    for (const raw of [
      '{"quantity": "1e3"}',
      '{"quantity": 1e3}',
      '{"quantity": 1E+2}',
      '{"quantity": -2.5e-1}',
      '{"quantity": "1.5E-3"}',
    ]) {
      const res = await recordRaw(raw);
      expect([raw, res.status]).toEqual([raw, 422]);
      expect(res.body.detail).toEqual([
        expect.objectContaining({
          loc: ['body', 'quantity'],
          type: 'decimal_parsing',
          msg: expect.stringMatching(/exponent/),
        }),
      ]);
    }
    const history = await api('GET', `/api/v1/subscriptions/${subscriptionId}/usage/history`, {
      apiKey: merchant.testKey,
    });
    expect(history.body).toEqual([]);
  });

  it("reports an exponent quantity in a batch as that record's error, and keeps JSON number quantities exact", async () => {
    const batch = await api('POST', '/api/v1/usage/batch', {
      apiKey: merchant.testKey,
      raw: `{"records": [{"subscription_id": "${subscriptionId}", "quantity": 1e3},
                         {"subscription_id": "${subscriptionId}", "quantity": 123456789012345678.25}]}`,
    });
    expect(batch.status).toBe(200);
    expect(batch.body).toMatchObject({
      accepted: 1,
      errors: [{ index: 0, detail: expect.stringMatching(/exponent/) }],
    });

    // A float would have made this 123456789012345680.
    const history = await api('GET', `/api/v1/subscriptions/${subscriptionId}/usage/history`, {
      apiKey: merchant.testKey,
    });
    expect(history.body.map((r: { quantity: string }) => r.quantity)).toEqual(['123456789012345678.25']);
  });
});

describe('malformed headers and HTTP', () => {
  it('answers malformed credentials, content types and encodings with a 4xx {"detail"}', async () => {
    const plans = '/api/v1/plans';
    const json = 'application/json';
    const cases: { headers: Record<string, string>; body?: string; status: number }[] = [
      { headers: { authorization: 'Bearer' }, status: 401 },
      { headers: { authorization: 'Basic Zm9vOmJhcg==' }, status: 401 },
      { headers: { authorization: 'Bearer a.b.c' }, status: 401 },
      { headers: { 'x-api-key': 'svc_test_%E0%A4%A' }, status: 401 },
      { headers: { 'x-api-key': 'k'.repeat(8000) }, status: 401 },
      { headers: { 'x-api-key': merchant.testKey, 'content-type': 'nonsense' }, body: '{}', status: 422 },
      // JSON is UTF-8 whatever the charset says: this reaches validation (no name, no amount).
      { headers: { 'x-api-key': merchant.testKey, 'content-type': `${json}; charset=bogus` }, body: '{}', status: 422 },
      {
        headers: { 'x-api-key': merchant.testKey, 'content-type': json, 'content-encoding': 'gzip' },
        body: '{}',
        status: 400,
      },
      {
        headers: { 'x-api-key': merchant.testKey, 'content-type': json, 'content-encoding': 'bogus' },
        body: '{}',
        status: 415,
      },
    ];
    for (const { headers, body, status } of cases) {
      const res = await sendRaw(platform.gatewayUrl, { method: 'POST', path: plans, headers, body });
      expect([headers, res.status, answerProblem(res.status, res.text)]).toEqual([headers, status, null]);
    }
  });

  it('answers a request the HTTP parser refuses (bad Content-Length, huge headers) with a JSON {"detail"}', async () => {
    const host = `Host: 127.0.0.1\r\nConnection: close\r\n`;
    const badLength = await sendBytes(
      platform.gatewayUrl,
      `POST /api/v1/plans HTTP/1.1\r\n${host}Content-Length: abc\r\n\r\n{}`,
    );
    const twoLengths = await sendBytes(
      platform.gatewayUrl,
      `POST /api/v1/plans HTTP/1.1\r\n${host}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`,
    );
    const hugeHeader = await sendBytes(
      platform.gatewayUrl,
      `GET /api/v1/plans HTTP/1.1\r\n${host}X-Api-Key: ${'k'.repeat(40_000)}\r\n\r\n`,
    );
    expect([badLength.status, answerProblem(badLength.status, badLength.text)]).toEqual([400, null]);
    expect([twoLengths.status, answerProblem(twoLengths.status, twoLengths.text)]).toEqual([400, null]);
    expect([hugeHeader.status, answerProblem(hugeHeader.status, hugeHeader.text)]).toEqual([431, null]);
  });
});

describe('generated requests over every operation of /openapi.json', () => {
  it('never answer 5xx, and every 4xx carries {"detail"} (422 in the published shape)', async () => {
    const doc = (await api('GET', '/openapi.json')).body as OpenApiDocument;
    const other = await registerMerchant(api, 'malformed-other');
    const paid = await payHostedCheckout(api, platform.gatewayUrl, merchant.testKey, planId, 'generated');
    const invoices = await api('GET', `/api/v1/invoices?subscription_id=${paid.subscriptionId}`, {
      apiKey: merchant.testKey,
    });
    const webhook = await api('POST', '/api/v1/webhooks', {
      apiKey: merchant.testKey,
      token: merchant.token,
      body: { url: 'https://example.com/hooks' },
    });
    const keys = await api('GET', '/api/v1/api-keys', { token: merchant.token });
    const liveKeyId = (keys.body as { id: string; is_live: boolean }[]).find((k) => k.is_live)?.id;
    const fixtures: Fixtures = {
      testKey: merchant.testKey,
      liveKey: merchant.liveKey,
      token: merchant.token,
      otherToken: other.token,
      ids: {
        project_id: merchant.projectId,
        plan_id: planId,
        customer_id: paid.customerId,
        subscription_id: paid.subscriptionId,
        code: paid.code,
        ...(invoices.body?.[0]?.id ? { invoice_id: invoices.body[0].id } : {}),
        ...(webhook.body?.id ? { webhook_id: webhook.body.id } : {}),
        // The live key's id: revoking it leaves the test key the generator uses working.
        ...(liveKeyId ? { api_key_id: liveKeyId } : {}),
      },
    };

    // Deletions last, closing the merchant's account very last, so the others keep their depth.
    const rank = (op: Operation) => (op.method === 'DELETE' ? (op.path === '/api/v1/merchants/me' ? 2 : 1) : 0);
    const operations = operationsOf(doc).sort((a, b) => rank(a) - rank(b));
    expect(operations.length).toBeGreaterThan(60);

    const failures: string[] = [];
    const started = Date.now();
    let requests = 0;
    for (const [index, op] of operations.entries()) {
      const seed = SEED + index;
      const details = await fc.check(
        fc.asyncProperty(requestsFor(op, doc, fixtures), async (req) => {
          requests++;
          const shown = () =>
            JSON.stringify({
              ...req,
              body: req.body && req.body.length > 300 ? `${req.body.slice(0, 300)}...` : req.body,
            });
          const res = await sendRaw(platform.gatewayUrl, req).catch((err: Error) => {
            throw new Error(`${err.message} <- ${shown().slice(0, 600)}`);
          });
          const problem = answerProblem(res.status, res.text);
          if (problem) throw new Error(`${problem}: ${res.text.slice(0, 300)} <- ${shown().slice(0, 600)}`);
        }),
        { seed, numRuns: RUNS_PER_OPERATION, endOnFailure: true },
      );
      if (details.failed) {
        failures.push(
          `${op.method} ${op.path} (seed ${seed}, path ${details.counterexamplePath}): ${String(details.errorInstance)}`,
        );
      }
    }
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `malformed input: ${requests} requests over ${operations.length} operations in ${seconds.toFixed(1)} s (seed ${SEED})`,
    );
    expect(failures).toEqual([]);
  }, 300_000);
});

describe('/openapi.json covers every route the gateway serves', () => {
  interface RouterLayer {
    route?: { path: string; methods: Record<string, boolean> };
    handle: { stack?: RouterLayer[] };
    rawPath?: string;
  }

  /** Method and OpenAPI path of every route layer of an Express router, mounted routers included. */
  function servedRoutes(stack: RouterLayer[], prefix = ''): string[] {
    return stack.flatMap((layer) => {
      if (layer.route) {
        const path = `${prefix}${layer.route.path}`.replace(/:(\w+)/g, '{$1}');
        return Object.keys(layer.route.methods).map((method) => `${method.toUpperCase()} ${path}`);
      }
      return layer.handle.stack ? servedRoutes(layer.handle.stack, `${prefix}${layer.rawPath ?? ''}`) : [];
    });
  }

  it('documents every route of the app, and the provider webhook answered before it', async () => {
    const logger = createLogger('test', 'silent');
    // Its middlewares are only mounted here, never run; the limits are the defaults.
    const rateLimits = new RateLimits(
      {
        REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
        REDIS_KEY_PREFIX: 'routes-test',
        RATE_LIMIT_LIVE_PER_SECOND: 100,
        RATE_LIMIT_TEST_PER_SECOND: 25,
        LOGIN_FAILURES_PER_15_MIN: 10,
        AUTH_REQUESTS_PER_MINUTE_PER_ADDRESS: 60,
        PORTAL_REQUESTS_PER_MINUTE_PER_ADDRESS: 120,
      },
      logger,
    );
    const app = createApp({
      config: {
        PUBLIC_URL: 'http://localhost',
        CATALOG_HTTP_URL: 'http://127.0.0.1:1',
        DOCUMENTS_HTTP_URL: 'http://127.0.0.1:1',
        PORTAL_HTTP_URL: 'http://127.0.0.1:1',
        CHECK_RESPONSES: false,
      },
      // Route handlers are only built here, never called.
      identity: {} as never,
      catalog: {} as never,
      billing: {} as never,
      policy: {} as never,
      notification: {} as never,
      documents: {} as never,
      portal: {} as never,
      analytics: {} as never,
      apiKeyCache: new ApiKeyCache(1000),
      planCache: new PlanReadCache(0),
      rateLimits,
      logger,
    });
    await rateLimits.close();
    const served = [
      ...servedRoutes((app as unknown as { router: { stack: RouterLayer[] } }).router.stack),
      `POST ${PROVIDER_WEBHOOK_PATH}`,
    ];
    const doc = (await api('GET', '/openapi.json')).body as OpenApiDocument;
    const documented = operationsOf(doc).map((op) => `${op.method} ${op.path}`);

    expect(served.length).toBeGreaterThan(60);
    expect(served.filter((route) => !documented.includes(route))).toEqual([]);
    expect(documented.filter((route) => !served.includes(route))).toEqual([]);
  });

  it('serves the documented provider webhook: an unsigned call is a 401 {"detail"}', async () => {
    const doc = (await api('GET', '/openapi.json')).body as OpenApiDocument;
    expect(doc.paths[PROVIDER_WEBHOOK_PATH].post).toMatchObject({
      security: [],
      responses: { 200: expect.any(Object), 401: expect.any(Object) },
    });
    const res = await api('POST', PROVIDER_WEBHOOK_PATH, { body: { event: 'charge.success', data: {} } });
    expect([res.status, res.body]).toEqual([401, { detail: expect.any(String) }]);
  });
});
