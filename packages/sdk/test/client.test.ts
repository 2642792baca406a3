/**
 * The client's own rules, against a scripted fetch (no server): credentials, Idempotency-Key,
 * which answers and failures are retried and how long it waits, and the errors it throws. The
 * same rules against the running platform are in merchant-flow.test.ts.
 */
import { BillingApiError, createBillingClient, IDEMPOTENCY_KEY_HEADER } from '../src';
import { retryingFetch } from '../src/retry';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Sent {
  method: string;
  url: string;
  headers: Headers;
  body: string;
}

type Answer = Response | Error;

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

/** A fetch that records every request and gives the scripted answers in order (the last one repeats). */
function scriptedFetch(...answers: Answer[]) {
  const sent: Sent[] = [];
  const fetch = async (request: Request) => {
    sent.push({ method: request.method, url: request.url, headers: request.headers, body: await request.text() });
    const answer = answers[Math.min(sent.length, answers.length) - 1];
    if (answer instanceof Error) throw answer;
    return answer.clone();
  };
  return { sent, fetch };
}

const plan = { id: 'p1', name: 'Pro', amount: 5000 };
/** What a call rejected with (a resolved value fails the test's instanceof check instead). */
const rejectionOf = (promise: Promise<unknown>): Promise<unknown> => promise.catch((err: unknown) => err);

describe('createBillingClient', () => {
  it('sends the API key and the access token, and resolves with the success body', async () => {
    const { sent, fetch } = scriptedFetch(json(201, plan));
    const billing = createBillingClient({ baseUrl: 'http://gw/', apiKey: 'svc_test_k', accessToken: 'jwt', fetch });
    const created = await billing.post('/api/v1/plans', { body: { name: 'Pro', amount: 5000 } });
    expect(created).toEqual(plan);
    expect(sent[0].url).toBe('http://gw/api/v1/plans');
    expect(sent[0].headers.get('x-api-key')).toBe('svc_test_k');
    expect(sent[0].headers.get('authorization')).toBe('Bearer jwt');
  });

  it('puts the email settings with put, retried after a 503 (a PUT repeats safely) and without an Idempotency-Key', async () => {
    const settings = { enabled: true, from_name: 'Acme Gym', reply_to: 'help@acme.example' };
    const { sent, fetch } = scriptedFetch(json(503, { detail: 'busy' }, { 'retry-after': '0' }), json(200, settings));
    const billing = createBillingClient({ baseUrl: 'http://gw', apiKey: 'k', fetch });
    expect(await billing.put('/api/v1/email-settings', { body: settings })).toEqual(settings);
    expect(sent.map((s) => s.method)).toEqual(['PUT', 'PUT']);
    expect(sent[0].headers.get(IDEMPOTENCY_KEY_HEADER)).toBeNull();
    expect(JSON.parse(sent[1].body)).toEqual(settings);
  });

  it('gives a POST a UUID Idempotency-Key and sends the same key on its retry after a 503', async () => {
    const { sent, fetch } = scriptedFetch(json(503, { detail: 'busy' }, { 'retry-after': '0' }), json(201, plan));
    const billing = createBillingClient({ baseUrl: 'http://gw', apiKey: 'k', fetch });
    await billing.post('/api/v1/plans', { body: { name: 'Pro', amount: 5000 } });
    expect(sent).toHaveLength(2);
    const [first, retry] = sent.map((s) => s.headers.get(IDEMPOTENCY_KEY_HEADER));
    expect(first).toMatch(UUID);
    expect(retry).toBe(first);
    expect(sent[1].body).toBe(sent[0].body);
  });

  it("keeps the caller's own key, and gives each call a key of its own otherwise", async () => {
    const { sent, fetch } = scriptedFetch(json(201, plan));
    const billing = createBillingClient({ baseUrl: 'http://gw', apiKey: 'k', fetch });
    const body = { name: 'Pro', amount: 5000 };
    await billing.post('/api/v1/plans', { body, params: { header: { 'Idempotency-Key': 'order-42' } } });
    await billing.post('/api/v1/plans', { body });
    await billing.post('/api/v1/plans', { body });
    const keys = sent.map((s) => s.headers.get(IDEMPOTENCY_KEY_HEADER));
    expect(keys[0]).toBe('order-42');
    expect(new Set(keys).size).toBe(3);
  });

  it('never repeats a POST that takes no key (registration) after a 503 or a network failure', async () => {
    const body = { email: 'a@example.com', business_name: 'A', password: 'password1' };
    const unavailable = scriptedFetch(json(503, { detail: 'outcome unknown' }), json(201, {}));
    const billing = createBillingClient({ baseUrl: 'http://gw', fetch: unavailable.fetch });
    const error = await rejectionOf(billing.post('/api/v1/auth/register', { body }));
    expect(error).toBeInstanceOf(BillingApiError);
    expect((error as BillingApiError).status).toBe(503);
    expect(unavailable.sent).toHaveLength(1);
    expect(unavailable.sent[0].headers.has(IDEMPOTENCY_KEY_HEADER)).toBe(false);

    const failing = scriptedFetch(new TypeError('fetch failed'), json(201, {}));
    const client = createBillingClient({ baseUrl: 'http://gw', fetch: failing.fetch });
    await expect(client.post('/api/v1/auth/register', { body })).rejects.toThrow('fetch failed');
    expect(failing.sent).toHaveLength(1);
  });

  it('retries a GET after a network failure, and gives up after maxRetries with the last answer as the error', async () => {
    const { sent, fetch } = scriptedFetch(new TypeError('fetch failed'), json(200, [plan]));
    const billing = createBillingClient({ baseUrl: 'http://gw', apiKey: 'k', fetch });
    expect(await billing.get('/api/v1/plans')).toEqual([plan]);
    expect(sent).toHaveLength(2);

    const busy = scriptedFetch(
      json(429, { detail: 'Too many requests' }, { 'retry-after': '0', 'x-request-id': 'r1' }),
    );
    const limited = createBillingClient({ baseUrl: 'http://gw', apiKey: 'k', maxRetries: 1, fetch: busy.fetch });
    const error = (await rejectionOf(limited.get('/api/v1/plans'))) as BillingApiError;
    expect(busy.sent).toHaveLength(2);
    expect(error).toMatchObject({ status: 429, detail: 'Too many requests', requestId: 'r1' });
  });

  it("throws a 422 as BillingApiError whose detail is the answer's violations", async () => {
    const violations = [{ loc: ['body', 'amount'], msg: 'Required', type: 'missing' }];
    const { fetch } = scriptedFetch(json(422, { detail: violations }, { 'x-request-id': 'req-9' }));
    const billing = createBillingClient({ baseUrl: 'http://gw', apiKey: 'k', fetch });
    const error = (await rejectionOf(
      billing.post('/api/v1/plans', { body: { name: 'Pro', amount: -1 } }),
    )) as BillingApiError;
    expect(error).toBeInstanceOf(BillingApiError);
    expect(error.status).toBe(422);
    expect(error.detail).toEqual(violations);
    expect(error.violations).toEqual(violations);
    expect(error.requestId).toBe('req-9');
    expect(error.body).toEqual({ detail: violations });
    expect(error.message).toBe('POST /api/v1/plans answered 422: body.amount: Required');
  });

  it("leaves openapi-fetch's GET to answer { data, error, response } without throwing", async () => {
    const { fetch } = scriptedFetch(json(404, { detail: 'No such plan' }));
    const billing = createBillingClient({ baseUrl: 'http://gw', apiKey: 'k', fetch });
    const { data, error, response } = await billing.GET('/api/v1/plans/{plan_id}', {
      params: { path: { plan_id: 'p1' } },
    });
    expect(data).toBeUndefined();
    expect(error).toEqual({ detail: 'No such plan' });
    expect(response.status).toBe(404);
  });
});

describe('retryingFetch waits', () => {
  const waitsFor = async (answers: Answer[], method = 'GET', maxRetries = 2) => {
    const { sent, fetch } = scriptedFetch(...answers);
    const waits: number[] = [];
    const retrying = retryingFetch(fetch, { maxRetries, sleep: async (ms) => void waits.push(ms) });
    const response = await retrying(new Request('http://gw/api/v1/plans', { method }));
    return { waits, attempts: sent.length, status: response.status };
  };

  it('the seconds of Retry-After, or as an HTTP date', async () => {
    const at = new Date(Date.now() + 3_000).toUTCString();
    const { waits, attempts } = await waitsFor([
      json(429, {}, { 'retry-after': '2' }),
      json(503, {}, { 'retry-after': at }),
      json(200, []),
    ]);
    expect(attempts).toBe(3);
    expect(waits[0]).toBe(2_000);
    expect(waits[1]).toBeGreaterThan(1_000);
    expect(waits[1]).toBeLessThanOrEqual(3_000);
  });

  it('a growing, jittered, bounded backoff when no Retry-After is given', async () => {
    const { waits } = await waitsFor([json(503, {}), json(503, {}), json(503, {}), json(200, [])], 'GET', 3);
    expect(waits).toHaveLength(3);
    waits.forEach((ms, retry) => {
      const step = 250 * 2 ** retry;
      expect(ms).toBeGreaterThanOrEqual(step / 2);
      expect(ms).toBeLessThanOrEqual(step);
    });
  });

  it('not at all for a Retry-After beyond a minute, another error status, or a keyless POST answered 503', async () => {
    expect(await waitsFor([json(429, {}, { 'retry-after': '120' }), json(200, [])])).toEqual({
      waits: [],
      attempts: 1,
      status: 429,
    });
    expect(await waitsFor([json(500, {}), json(200, [])])).toMatchObject({ attempts: 1, status: 500 });
    expect(await waitsFor([json(503, {}), json(200, [])], 'POST')).toMatchObject({ attempts: 1, status: 503 });
    expect(await waitsFor([json(429, {}, { 'retry-after': '1' }), json(200, [])], 'POST')).toMatchObject({
      waits: [1_000],
      attempts: 2,
      status: 200,
    });
  });
});
