import { createServer, type Server } from 'node:http';
import {
  PaymentProviderError,
  PaystackClient,
  SandboxControlsClient,
  verifyPaystackWebhook,
  type VerifiedTransaction,
} from '@billing/payments';
import { freePort, startPlatform, type PlatformUnderTest } from '@billing/testing';

interface WebhookDelivery {
  raw: Buffer;
  signature: string | undefined;
  reference: string | undefined;
}

/** A merchant's webhook endpoint on a free port; keeps each delivery's exact bytes. */
async function startWebhookReceiver() {
  const deliveries: WebhookDelivery[] = [];
  /** References whose first delivery is answered 503, to see the sandbox retry. */
  const failFirstFor = new Set<string>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let reference: string | undefined;
      try {
        reference = (JSON.parse(raw.toString('utf8')) as { data?: { reference?: string } }).data?.reference;
      } catch {
        reference = undefined;
      }
      const signature = req.headers['x-paystack-signature'];
      deliveries.push({ raw, signature: typeof signature === 'string' ? signature : undefined, reference });
      if (reference && failFirstFor.delete(reference)) res.writeHead(503).end();
      else res.writeHead(200).end('ok');
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}/api/v1/payments/paystack/webhook`,
    failFirstFor,
    deliveriesFor: (reference: string) => deliveries.filter((d) => d.reference === reference),
    async waitFor(reference: string, count = 1, timeoutMs = 10_000): Promise<WebhookDelivery[]> {
      const deadline = Date.now() + timeoutMs;
      while (this.deliveriesFor(reference).length < count) {
        if (Date.now() > deadline) throw new Error(`no ${count} webhook(s) for ${reference} within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return this.deliveriesFor(reference);
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * The sandbox provider as the platform uses it: a real process, spoken to only through the same
 * PaystackClient that live mode points at api.paystack.co. What passes here is the protocol
 * contract both providers must keep.
 */
describe('sandbox provider: the Paystack protocol through PaystackClient', () => {
  let platform: PlatformUnderTest;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let client: PaystackClient;
  let controls: SandboxControlsClient;
  let secret: string;
  let counter = 0;
  const reference = (label: string) => `${label}-${Date.now().toString(36)}-${++counter}`;
  const callbackUrl = 'https://merchant.example/checkout/abc123/callback?session=abc123';

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    platform = await startPlatform({ only: ['sandbox-provider'], env: { SANDBOX_WEBHOOK_URL: receiver.url } });
    secret = platform.env.SANDBOX_SECRET_KEY;
    const options = { baseUrl: platform.env.SANDBOX_PROVIDER_URL, secretKey: secret };
    client = new PaystackClient(options);
    controls = new SandboxControlsClient(options);
  });
  afterAll(async () => {
    await platform?.stop();
    await receiver?.close();
  });

  /** What a payer does: open the authorization_url, press one button. */
  async function payOnPage(authorizationUrl: string, outcome: 'success' | 'declined' | 'insufficient_funds') {
    return fetch(authorizationUrl, {
      method: 'POST',
      body: new URLSearchParams({ outcome }),
      redirect: 'manual',
    });
  }

  async function startPayment(email: string, amount = 500_050, metadata: Record<string, unknown> = {}) {
    const ref = reference('pay');
    const started = await client.initializeTransaction({
      email,
      amount,
      currency: 'NGN',
      reference: ref,
      callbackUrl,
      metadata,
    });
    return { ref, ...started };
  }

  /** A successful hosted payment, i.e. a customer with a saved card. */
  async function paidCustomer(email: string): Promise<VerifiedTransaction> {
    const { ref, authorizationUrl } = await startPayment(email, 10_000);
    expect((await payOnPage(authorizationUrl, 'success')).status).toBe(303);
    return (await client.verifyTransaction(ref))!;
  }

  const expectProviderError = async (promise: Promise<unknown>, httpStatus: number, message?: RegExp) => {
    const err = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PaymentProviderError);
    expect(err).toMatchObject({ httpStatus, retryable: false });
    if (message) expect((err as Error).message).toMatch(message);
    expect((err as Error).message).not.toContain(secret);
  };

  it('answers its health probe', async () => {
    const res = await fetch(`${platform.env.SANDBOX_PROVIDER_URL}/healthz`);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('creates a customer once per email and returns its code again for the same email', async () => {
    const first = await client.createCustomer({ email: 'ada@example.com', name: 'Ada Lovelace' });
    expect(first).toEqual({ customerCode: expect.stringMatching(/^CUS_[a-z0-9]+$/), email: 'ada@example.com' });
    expect(await client.createCustomer({ email: 'ADA@example.com' })).toMatchObject({
      customerCode: first.customerCode,
    });
  });

  it('initializes a payment whose authorization_url serves a phone-friendly page with the three outcomes', async () => {
    const { ref, authorizationUrl, accessCode } = await startPayment('page@example.com');
    expect(authorizationUrl).toBe(`${platform.env.SANDBOX_PROVIDER_URL}/pay/${accessCode}`);

    const page = await fetch(authorizationUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    expect(html).toContain('name="viewport"');
    const labels = [...html.matchAll(/<button[^>]*>([^<]*)<\/button>/g)].map((m) => m[1]);
    expect(labels).toEqual(['Success', 'Declined', 'Insufficient funds']);
    expect(html).toContain('NGN 5,000.50');
    expect(html).toContain('page@example.com');
    // Cancel goes back to the merchant and leaves the transaction unpaid.
    expect(html).toContain(`>Cancel payment</a>`);
    expect(html).toContain(
      `href="https://merchant.example/checkout/abc123/callback?session=abc123&amp;trxref=${ref}&amp;reference=${ref}"`,
    );
    expect(await client.verifyTransaction(ref)).toMatchObject({ status: 'pending', authorization: null, paidAt: null });
  });

  it("sends Cancel to Paystack's metadata.cancel_action when the merchant set one", async () => {
    const { authorizationUrl } = await startPayment('cancel@example.com', 100, {
      cancel_action: 'https://merchant.example/checkout/abc123?cancelled=1',
    });
    expect(await (await fetch(authorizationUrl)).text()).toContain(
      'href="https://merchant.example/checkout/abc123?cancelled=1"',
    );
  });

  it('pays on "Success": 303 to the callback with the reference, then verify shows a reusable card and the customer', async () => {
    const metadata = { checkout_session_code: 'abc123', nested: { plan: 'gold' } };
    const { ref, authorizationUrl } = await startPayment('success@example.com', 500_050, metadata);

    const redirect = await payOnPage(authorizationUrl, 'success');
    expect(redirect.status).toBe(303);
    const location = new URL(redirect.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe('https://merchant.example/checkout/abc123/callback');
    expect(Object.fromEntries(location.searchParams)).toEqual({ session: 'abc123', reference: ref, trxref: ref });

    const verified = await client.verifyTransaction(ref);
    expect(verified).toEqual({
      reference: ref,
      status: 'success',
      amount: 500_050,
      currency: 'NGN',
      gatewayResponse: 'Approved',
      paidAt: expect.any(Date),
      customer: { customerCode: expect.stringMatching(/^CUS_/), email: 'success@example.com' },
      authorization: {
        authorizationCode: expect.stringMatching(/^AUTH_[a-z0-9]+$/),
        reusable: true,
        last4: '4081',
        brand: 'visa',
        expMonth: '12',
        expYear: expect.stringMatching(/^\d{4}$/),
      },
      metadata,
    });

    // A double submit moves nothing: same redirect, still one paid transaction.
    expect((await payOnPage(authorizationUrl, 'declined')).status).toBe(303);
    expect(await client.verifyTransaction(ref)).toMatchObject({ status: 'success', gatewayResponse: 'Approved' });
    const ledger = await controls.ledger({ reference: ref });
    expect(ledger.transactions).toEqual([
      expect.objectContaining({ reference: ref, amount: 500_050, status: 'success', channel: 'card' }),
    ]);
  });

  it('answers null for a reference it never saw', async () => {
    expect(await client.verifyTransaction('never-seen-reference')).toBeNull();
  });

  it.each([
    ['declined', 'Declined'],
    ['insufficient_funds', 'Insufficient Funds'],
  ] as const)('fails the payment on "%s" with gateway response "%s" and saves no card', async (outcome, words) => {
    const { ref, authorizationUrl } = await startPayment(`${outcome}@example.com`);
    const redirect = await payOnPage(authorizationUrl, outcome);
    expect(redirect.status).toBe(303);
    expect(new URL(redirect.headers.get('location')!).searchParams.get('reference')).toBe(ref);
    expect(await client.verifyTransaction(ref)).toMatchObject({
      status: 'failed',
      gatewayResponse: words,
      authorization: null,
      paidAt: null,
    });
  });

  it('refuses a reused reference, and a reference Paystack would refuse', async () => {
    const { ref } = await startPayment('dup@example.com');
    const again = client.initializeTransaction({
      email: 'dup@example.com',
      amount: 100,
      currency: 'NGN',
      reference: ref,
      callbackUrl,
    });
    await expectProviderError(again, 400, /^Duplicate Transaction Reference$/);
    const underscore = client.initializeTransaction({
      email: 'dup@example.com',
      amount: 100,
      currency: 'NGN',
      reference: 'inv_1',
      callbackUrl,
    });
    await expectProviderError(underscore, 400, /only -, \., = and alphanumeric/);
  });

  it('charges a saved card, idempotently per reference, and fails it once told to decline', async () => {
    const email = 'dunning@example.com';
    const card = (await paidCustomer(email)).authorization!;
    const charge = (ref: string, amount = 250_000) =>
      client.chargeAuthorization({
        authorizationCode: card.authorizationCode,
        email,
        amount,
        currency: 'NGN',
        reference: ref,
        metadata: { invoice_id: 'inv-1' },
      });

    const renewal = reference('inv-1-attempt-1');
    const first = await charge(renewal);
    expect(first).toMatchObject({
      reference: renewal,
      status: 'success',
      amount: 250_000,
      gatewayResponse: 'Approved',
      authorization: { authorizationCode: card.authorizationCode, reusable: true },
      metadata: { invoice_id: 'inv-1' },
    });
    // The same charge again (a retry after a timeout) is the first one, not a second charge.
    expect(await charge(renewal)).toEqual(first);
    expect((await controls.ledger({ reference: renewal })).transactions).toHaveLength(1);
    // ... but a different charge under a used reference is refused.
    await expectProviderError(charge(renewal, 1), 400, /Duplicate Transaction Reference/);

    await controls.setAuthorizationBehavior(card.authorizationCode, 'decline');
    const declined = await charge(reference('inv-2-attempt-1'));
    expect(declined).toMatchObject({ status: 'failed', gatewayResponse: 'Declined', paidAt: null });

    await controls.setAuthorizationBehavior(card.authorizationCode, 'insufficient_funds');
    expect(await charge(reference('inv-2-attempt-2'))).toMatchObject({
      status: 'failed',
      gatewayResponse: 'Insufficient Funds',
    });

    // The first outcome of a reference stands even after the card changed.
    expect(await charge(renewal)).toEqual(first);

    await controls.setAuthorizationBehavior(card.authorizationCode, 'succeed');
    expect(await charge(reference('inv-2-attempt-3'))).toMatchObject({ status: 'success' });

    const ledger = await controls.ledger({ email });
    expect(ledger.transactions.map((t) => [t.channel, t.status, t.gateway_response, t.amount])).toEqual([
      ['card', 'success', 'Approved', 10_000],
      ['authorization', 'success', 'Approved', 250_000],
      ['authorization', 'failed', 'Declined', 250_000],
      ['authorization', 'failed', 'Insufficient Funds', 250_000],
      ['authorization', 'success', 'Approved', 250_000],
    ]);
  });

  it('refuses a charge with an unknown card or another customer`s email, and an unknown card`s behavior', async () => {
    const card = (await paidCustomer('owner@example.com')).authorization!;
    const base = { amount: 100, currency: 'NGN', reference: reference('stolen') };
    await expectProviderError(
      client.chargeAuthorization({ ...base, authorizationCode: 'AUTH_unknown', email: 'owner@example.com' }),
      400,
      /Invalid authorization code/,
    );
    await expectProviderError(
      client.chargeAuthorization({ ...base, authorizationCode: card.authorizationCode, email: 'thief@example.com' }),
      400,
      /Email does not match/,
    );
    await expectProviderError(controls.setAuthorizationBehavior('AUTH_unknown', 'decline'), 404);
  });

  it('refunds in full or in parts, never more than was paid', async () => {
    const full = await paidCustomer('refund-full@example.com');
    const refunded = await client.refund({ transactionReference: full.reference, merchantNote: 'cancel-1' });
    expect(refunded).toEqual({
      id: expect.stringMatching(/^\d+$/),
      transactionReference: full.reference,
      amount: 10_000,
      status: 'processed',
      merchantNote: 'cancel-1',
    });
    // GET /refund?transaction=: what a caller that lost the answer reads before resending.
    expect(await client.listRefunds(full.reference)).toEqual([refunded]);
    expect(await client.listRefunds('never-paid-ref')).toEqual([]);
    await expectProviderError(
      client.refund({ transactionReference: full.reference, amount: 1 }),
      400,
      /fully reversed/,
    );

    const partial = await paidCustomer('refund-partial@example.com');
    expect(await client.refund({ transactionReference: partial.reference, amount: 2_000 })).toMatchObject({
      amount: 2_000,
    });
    await expectProviderError(
      client.refund({ transactionReference: partial.reference, amount: 8_001 }),
      400,
      /Refund amount cannot be more than the transaction amount/,
    );
    expect(await client.refund({ transactionReference: partial.reference })).toMatchObject({ amount: 8_000 });

    const ledger = await controls.ledger({ reference: partial.reference });
    expect(ledger.refunds.map((r) => [r.transaction_reference, r.amount, r.status])).toEqual([
      [partial.reference, 2_000, 'processed'],
      [partial.reference, 8_000, 'processed'],
    ]);

    const { ref: unpaid } = await startPayment('refund-unpaid@example.com');
    await expectProviderError(client.refund({ transactionReference: unpaid }), 400, /not successful/);
    await expectProviderError(client.refund({ transactionReference: 'never-seen-reference' }), 404);
  });

  it('charges once and refunds at most what was paid when the same requests race each other', async () => {
    const email = 'race@example.com';
    const card = (await paidCustomer(email)).authorization!;
    const ref = reference('race');
    const charges = await Promise.all(
      Array.from({ length: 8 }, () =>
        client.chargeAuthorization({
          authorizationCode: card.authorizationCode,
          email,
          amount: 5_000,
          currency: 'NGN',
          reference: ref,
        }),
      ),
    );
    expect(new Set(charges.map((c) => c.paidAt?.toISOString())).size).toBe(1);
    expect((await controls.ledger({ reference: ref })).transactions).toHaveLength(1);

    const refunds = await Promise.allSettled(
      Array.from({ length: 8 }, () => client.refund({ transactionReference: ref, amount: 2_000 })),
    );
    expect(refunds.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    const refunded = (await controls.ledger({ reference: ref })).refunds.reduce((sum, r) => sum + r.amount, 0);
    expect(refunded).toBe(4_000);
  });

  it('charges many saved cards at once, each once with its own webhook; a charge that cannot be stored fails alone', async () => {
    const email = 'many-at-once@example.com';
    const card = (await paidCustomer(email)).authorization!;
    const refs = Array.from({ length: 24 }, (_, i) => reference(`many-${i}`));
    const bad = 7;
    const results = await Promise.allSettled(
      refs.map((ref, i) =>
        client.chargeAuthorization({
          authorizationCode: card.authorizationCode,
          email,
          amount: 1_000 + i,
          currency: 'NGN',
          reference: ref,
          // PostgreSQL's jsonb refuses \u0000, so this charge cannot be recorded.
          metadata: i === bad ? { note: 'nul \u0000' } : { i },
        }),
      ),
    );
    results.forEach((result, i) => {
      if (i === bad) expect(result).toMatchObject({ status: 'rejected', reason: { httpStatus: 500 } });
      else
        expect(result).toMatchObject({
          status: 'fulfilled',
          value: { reference: refs[i], amount: 1_000 + i, status: 'success', metadata: { i } },
        });
    });
    const charged = (await controls.ledger({ email })).transactions.filter((t) => t.channel === 'authorization');
    expect(charged.map((t) => t.reference).sort()).toEqual(refs.filter((_, i) => i !== bad).sort());
    for (const ref of refs.filter((_, i) => i !== bad)) expect(await receiver.waitFor(ref)).toHaveLength(1);
    expect(receiver.deliveriesFor(refs[bad])).toHaveLength(0);
  });

  it('refuses every API call made with another secret key (401), on Paystack routes and sandbox controls', async () => {
    const intruder = { baseUrl: platform.env.SANDBOX_PROVIDER_URL, secretKey: 'sk_test_not_the_sandbox_key' };
    await expectProviderError(new PaystackClient(intruder).verifyTransaction('anything'), 401, /Invalid key/);
    await expectProviderError(new PaystackClient(intruder).createCustomer({ email: 'x@example.com' }), 401);
    await expectProviderError(new SandboxControlsClient(intruder).ledger(), 401);
  });

  it('posts a signed charge.success webhook after a hosted payment and after a saved-card charge', async () => {
    const { ref, authorizationUrl } = await startPayment('webhook@example.com', 700_000, {
      checkout_session_code: 'abc123',
    });
    expect((await payOnPage(authorizationUrl, 'success')).status).toBe(303);

    const [delivery] = await receiver.waitFor(ref);
    const payload = JSON.parse(delivery.raw.toString('utf8')) as { event: string; data: Record<string, unknown> };
    expect(payload.event).toBe('charge.success');
    expect(payload.data).toMatchObject({
      reference: ref,
      status: 'success',
      amount: 700_000,
      currency: 'NGN',
      metadata: { checkout_session_code: 'abc123' },
    });
    expect(verifyPaystackWebhook(delivery.raw, delivery.signature, secret)).toBe(true);
    expect(verifyPaystackWebhook(delivery.raw, delivery.signature, 'sk_test_some_other_secret')).toBe(false);

    // Same data as verify: a merchant may act on either.
    const verified = await client.verifyTransaction(ref);
    const authorization = payload.data.authorization as { authorization_code: string };
    expect(authorization.authorization_code).toBe(verified!.authorization!.authorizationCode);

    const renewal = reference('renewal');
    await client.chargeAuthorization({
      authorizationCode: authorization.authorization_code,
      email: 'webhook@example.com',
      amount: 700_000,
      currency: 'NGN',
      reference: renewal,
    });
    const [charged] = await receiver.waitFor(renewal);
    expect(verifyPaystackWebhook(charged.raw, charged.signature, secret)).toBe(true);
  });

  it('retries a webhook the merchant failed to take, with the same signed bytes, and sends none for failures', async () => {
    const { ref, authorizationUrl } = await startPayment('retry@example.com');
    receiver.failFirstFor.add(ref);
    await payOnPage(authorizationUrl, 'success');
    const [refused, accepted] = await receiver.waitFor(ref, 2);
    expect(accepted.raw.equals(refused.raw)).toBe(true);
    expect(accepted.signature).toBe(refused.signature);

    const declined = await startPayment('no-webhook@example.com');
    await payOnPage(declined.authorizationUrl, 'declined');
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.deliveriesFor(declined.ref)).toHaveLength(0);
  });
});
