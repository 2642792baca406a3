import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { register } from 'prom-client';
import { PaymentProviderError, PaystackClient } from '../src';

interface Recorded {
  method: string;
  url: string;
  authorization: string | undefined;
  body: unknown;
}

/**
 * Paystack as seen on the wire, with the quirks of the live API that the sandbox never shows
 * (empty `authorization` objects, string metadata, "reversed"), and its failures.
 */
describe('PaystackClient against a stub Paystack', () => {
  const secretKey = 'sk_live_stub_0123456789abcdef';
  let server: Server;
  let baseUrl: string;
  let requests: Recorded[];
  let answer: (req: Recorded, res: ServerResponse) => void;

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const recorded = {
          method: req.method ?? '',
          url: req.url ?? '',
          authorization: req.headers.authorization,
          body: text ? (JSON.parse(text) as unknown) : undefined,
        };
        requests.push(recorded);
        answer(recorded, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    requests = [];
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const json = (status: number, body: unknown) => (_req: Recorded, res: ServerResponse) => {
    res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  };
  const client = (timeoutMs?: number) => new PaystackClient({ baseUrl: `${baseUrl}/`, secretKey, timeoutMs });
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error('expected a PaymentProviderError');
      },
      (err: unknown) => {
        expect(err).toBeInstanceOf(PaymentProviderError);
        expect((err as Error).message).not.toContain(secretKey);
        return err as PaymentProviderError;
      },
    );

  it('sends the Bearer key and Paystack field names; splits a name into first and last', async () => {
    answer = json(200, {
      status: true,
      message: 'Customer created',
      data: { customer_code: 'CUS_x1', email: 'a@b.co' },
    });
    expect(await client().createCustomer({ email: 'a@b.co', name: 'Ada  King Lovelace' })).toEqual({
      customerCode: 'CUS_x1',
      email: 'a@b.co',
    });
    expect(requests[0]).toEqual({
      method: 'POST',
      url: '/customer',
      authorization: `Bearer ${secretKey}`,
      body: { email: 'a@b.co', first_name: 'Ada', last_name: 'King Lovelace' },
    });
  });

  it('maps a live verify answer: string metadata, camelCase paidAt, "reversed" as the paid charge it was', async () => {
    answer = json(200, {
      status: true,
      message: 'Verification successful',
      data: {
        status: 'reversed',
        reference: 'ref-9',
        amount: 500050,
        currency: 'NGN',
        gateway_response: 'Successful',
        paidAt: '2026-11-21T10:00:00.000Z',
        metadata: '{"invoice_id":"inv_1"}',
        customer: { id: 7, email: 'a@b.co', customer_code: 'CUS_x1' },
        authorization: {
          authorization_code: 'AUTH_1',
          reusable: true,
          last4: '4081',
          brand: 'visa',
          exp_month: '12',
          exp_year: 2030,
        },
      },
    });
    expect(await client().verifyTransaction('ref 9/x')).toEqual({
      reference: 'ref-9',
      status: 'success',
      amount: 500050,
      currency: 'NGN',
      gatewayResponse: 'Successful',
      paidAt: new Date('2026-11-21T10:00:00.000Z'),
      customer: { customerCode: 'CUS_x1', email: 'a@b.co' },
      authorization: {
        authorizationCode: 'AUTH_1',
        reusable: true,
        last4: '4081',
        brand: 'visa',
        expMonth: '12',
        expYear: '2030',
      },
      metadata: { invoice_id: 'inv_1' },
    });
    expect(requests[0].url).toBe('/transaction/verify/ref%209%2Fx');
  });

  it('reads an unpaid transaction: `authorization: {}` is no card, an unknown status is pending', async () => {
    answer = json(200, {
      status: true,
      data: { status: 'ongoing', reference: 'r', amount: 100, currency: 'NGN', authorization: {}, metadata: '' },
    });
    const verified = await client().verifyTransaction('r');
    expect(verified).toMatchObject({
      status: 'pending',
      authorization: null,
      customer: null,
      paidAt: null,
      metadata: {},
    });
  });

  it('answers null for an unknown reference, whether Paystack says 404 or 400 "reference not found"', async () => {
    answer = json(404, { status: false, message: 'Transaction reference not found' });
    expect(await client().verifyTransaction('nope')).toBeNull();
    answer = json(400, { status: false, message: 'Transaction reference not found.' });
    expect(await client().verifyTransaction('nope')).toBeNull();
  });

  it('does not mistake a bare 404 (wrong base URL, proxy page) for an unknown reference', async () => {
    answer = (_req, res) => res.writeHead(404, { 'Content-Type': 'text/html' }).end('<h1>Not Found</h1>');
    expect(await failure(client().verifyTransaction('ref-9'))).toMatchObject({ httpStatus: 404, retryable: false });
  });

  it('passes on a 4xx as not retryable with Paystack`s message, without leaking an echoed key', async () => {
    answer = json(400, { status: false, message: 'Duplicate Transaction Reference' });
    const duplicate = await failure(
      client().initializeTransaction({
        email: 'a@b.co',
        amount: 100,
        currency: 'NGN',
        reference: 'r',
        callbackUrl: 'https://m.example/cb',
      }),
    );
    expect(duplicate).toMatchObject({ httpStatus: 400, retryable: false, message: 'Duplicate Transaction Reference' });

    answer = json(401, { status: false, message: `Invalid key ${secretKey}` });
    const unauthorized = await failure(client().refund({ transactionReference: 'r' }));
    expect(unauthorized).toMatchObject({ httpStatus: 401, retryable: false });
  });

  it('treats 5xx, an unreadable 2xx and a missing `data` as retryable: the outcome is unknown', async () => {
    answer = json(502, { message: 'Bad gateway' });
    expect(await failure(client().verifyTransaction('r'))).toMatchObject({ httpStatus: 502, retryable: true });
    answer = (_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html>maintenance</html>');
    expect(await failure(client().verifyTransaction('r'))).toMatchObject({ retryable: true });
    answer = json(200, { status: true, data: { reference: 'r', amount: 1.5, status: 'success', currency: 'NGN' } });
    expect(await failure(client().verifyTransaction('r'))).toMatchObject({ retryable: true });
  });

  it('treats an unreachable provider and a timeout as retryable', async () => {
    const unreachable = new PaystackClient({ baseUrl: 'http://127.0.0.1:1', secretKey });
    expect(await failure(unreachable.verifyTransaction('r'))).toMatchObject({ httpStatus: null, retryable: true });

    // undici checks its timeouts about twice a second: a 1 s limit against a 3 s answer.
    answer = (_req, res) => setTimeout(() => json(200, { status: true })(_req, res), 3000);
    const slow = await failure(client(1000).verifyTransaction('r'));
    expect(slow).toMatchObject({ httpStatus: null, retryable: true });
    expect(slow.message).toMatch(/within 1000 ms/);
  });

  it('times every call and counts its failures by operation and outcome, labelled by provider and never by path', async () => {
    // A provider name of this test's own, so that the other tests' calls are not in its series.
    const provider = 'metrics-test';
    const measured = new PaystackClient({ baseUrl: `${baseUrl}/`, secretKey, metricsName: provider, timeoutMs: 1000 });
    const series = async (name: string) =>
      (await register.getSingleMetric(name)!.get()).values
        // A histogram's values are its buckets, sum and count (metricName): the count is the calls.
        .filter((v: { metricName?: string; labels: object }) => {
          const { metricName } = v;
          return (
            (v.labels as { provider?: string }).provider === provider && (!metricName || metricName.endsWith('_count'))
          );
        })
        .filter((v) => v.value > 0)
        .map((v) => `${String(v.labels.operation)} ${String(v.labels.outcome)} ${v.value}`)
        .sort();
    // Every failure series is there at 0 before any call.
    const zeros = (await register.getSingleMetric('payment_provider_errors_total')!.get()).values.filter(
      (v) => v.labels.provider === provider,
    );
    expect(zeros).toHaveLength(6 * 3);
    expect(zeros.every((v) => v.value === 0)).toBe(true);

    answer = json(200, { status: true, data: { status: 'success', reference: 'r', amount: 100, currency: 'NGN' } });
    await measured.verifyTransaction('ref-with-an-id-1');
    await measured.verifyTransaction('ref-with-an-id-2');
    answer = json(200, { status: true, data: { status: 'failed', reference: 'r', amount: 100, currency: 'NGN' } });
    // A declined charge is an answer: a success of the call.
    await measured.chargeAuthorization({
      authorizationCode: 'AUTH_x',
      email: 'a@b.co',
      amount: 100,
      currency: 'NGN',
      reference: 'r',
    });
    answer = json(502, { message: 'Bad gateway' });
    await failure(measured.refund({ transactionReference: 'r' }));
    answer = json(400, { status: false, message: 'Duplicate Transaction Reference' });
    await failure(measured.createCustomer({ email: 'a@b.co' }));
    const unreachable = new PaystackClient({ baseUrl: 'http://127.0.0.1:1', secretKey, metricsName: provider });
    await failure(unreachable.listRefunds('r'));

    expect(await series('payment_provider_request_duration_seconds')).toEqual([
      'charge_authorization success 1',
      'create_customer refused 1',
      'list_refunds unreachable 1',
      'refund error 1',
      'verify_transaction success 2',
    ]);
    expect(await series('payment_provider_errors_total')).toEqual([
      'create_customer refused 1',
      'list_refunds unreachable 1',
      'refund error 1',
    ]);
    const labelNames = (await register.getSingleMetric('payment_provider_request_duration_seconds')!.get()).values
      .filter((v) => v.labels.provider === provider)
      .flatMap((v) => Object.keys(v.labels));
    expect([...new Set(labelNames)].sort()).toEqual(['le', 'operation', 'outcome', 'provider']);
    await unreachable.close();
    await measured.close();
  });

  it('refuses a fractional or non-positive amount before anything reaches the provider', async () => {
    const charge = (amount: number) =>
      client().chargeAuthorization({
        authorizationCode: 'AUTH_1',
        email: 'a@b.co',
        amount,
        currency: 'NGN',
        reference: 'r',
      });
    for (const amount of [5000.5, 0, -100, Number.MAX_SAFE_INTEGER + 2]) {
      expect(await failure(charge(amount))).toMatchObject({ retryable: false, httpStatus: null });
    }
    expect(requests).toHaveLength(0);
  });

  it('maps a refund, its numeric id and Paystack`s queued status', async () => {
    answer = json(200, {
      status: true,
      message: 'Refund has been queued for processing',
      data: { id: 3, transaction: { id: 1, reference: 'ref-9' }, amount: 2000, status: 'pending' },
    });
    expect(await client().refund({ transactionReference: 'ref-9', amount: 2000 })).toEqual({
      id: '3',
      transactionReference: 'ref-9',
      amount: 2000,
      status: 'pending',
      merchantNote: null,
    });
    expect(requests[0].body).toEqual({ transaction: 'ref-9', amount: 2000 });
  });

  it('sends our refund reference as merchant_note and lists a transaction`s refunds with it', async () => {
    answer = json(200, {
      status: true,
      message: 'Refunds retrieved',
      data: [
        { id: 4, transaction: { reference: 'ref-9' }, amount: 500, status: 'processed', merchant_note: 'cancel:1' },
        { id: 5, transaction: 77, amount: 100, status: 'failed' },
      ],
    });
    expect(await client().listRefunds('ref 9')).toEqual([
      { id: '4', transactionReference: 'ref-9', amount: 500, status: 'processed', merchantNote: 'cancel:1' },
      { id: '5', transactionReference: 'ref 9', amount: 100, status: 'failed', merchantNote: null },
    ]);
    expect(requests[0].url).toContain('/refund?transaction=ref+9');
  });
});
