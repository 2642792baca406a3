import { createHmac } from 'node:crypto';
import { SandboxControlsClient, type SandboxLedger } from '@billing/payments';
import { queryDatabase, type SharedPlatform, sharedPlatform } from '@billing/testing';
import { gatewayApi, registerMerchant, uniqueEmail, type Api, type RegisteredMerchant } from './support/api';
import { waitFor } from './support/wait';

const PRICE = 99000;

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields),
  redirect: 'manual' as const,
});

/**
 * Every successful checkout payment is used by exactly one completion or refunded, once, and
 * recorded (docs/payment-recovery.md): a second Pay in another tab, a payment made after the
 * session expired or was cancelled. Only a transaction the session started can complete it.
 * Money is counted in the sandbox provider's own ledger. Driven over HTTP as a payer's browser.
 */
describe('checkout payments: second Pay, late payments, foreign references', () => {
  let platform: SharedPlatform;
  let api: Api;
  let merchant: RegisteredMerchant;
  let sandbox: SandboxControlsClient;
  let planId: string;

  beforeAll(async () => {
    platform = await sharedPlatform();
    api = gatewayApi(platform.gatewayUrl);
    merchant = await registerMerchant(api, 'recovery');
    sandbox = new SandboxControlsClient({
      baseUrl: platform.env.SANDBOX_PROVIDER_URL,
      secretKey: platform.env.SANDBOX_SECRET_KEY,
    });
    planId = (
      await api('POST', '/api/v1/plans', { apiKey: merchant.testKey, body: { name: 'Recovery plan', amount: 990 } })
    ).body.id;
  }, 180_000);
  afterAll(async () => {
    await platform?.stop();
  });

  const newSession = async (): Promise<string> =>
    (
      await api('POST', '/api/v1/checkout/sessions', {
        apiKey: merchant.testKey,
        body: { plan_id: planId, success_url: 'https://merchant.example/thanks' },
      })
    ).body.code;
  const getSession = async (code: string) =>
    (await api('GET', `/api/v1/checkout/sessions/${code}`, { apiKey: merchant.testKey })).body;

  /** "Pay" on the hosted page: the sandbox payment page's URL. */
  async function startPay(code: string, email: string): Promise<string> {
    const pay = await fetch(`${platform.gatewayUrl}/checkout/${code}/pay`, form({ email }));
    expect(pay.status).toBe(303);
    return pay.headers.get('location')!;
  }

  /** "Success" on the sandbox page: the callback URL it sends the payer to. */
  async function payAtSandbox(paymentPage: string): Promise<{ callbackUrl: string; reference: string }> {
    const outcome = await fetch(paymentPage, form({ outcome: 'success' }));
    expect(outcome.status).toBe(303);
    const callbackUrl = outcome.headers.get('location')!;
    return { callbackUrl, reference: new URL(callbackUrl).searchParams.get('reference')! };
  }

  const callback = async (url: string) => {
    const res = await fetch(url, { redirect: 'manual' });
    return { status: res.status, text: await res.text() };
  };

  const successes = (ledger: SandboxLedger) => ledger.transactions.filter((t) => t.status === 'success');

  const billingRefunds = (references: string[]) =>
    queryDatabase<{ transaction_reference: string; reason: string; status: string; amount: string }>(
      platform.database('billing'),
      `SELECT transaction_reference, reason, status, amount FROM refunds WHERE transaction_reference = ANY($1)
        ORDER BY transaction_reference`,
      [references],
    );

  const subscriptionsOf = (email: string) =>
    queryDatabase<{ id: string }>(
      platform.database('billing'),
      `SELECT s.id FROM subscriptions s JOIN customers c ON c.id = s.customer_id WHERE c.email = $1`,
      [email],
    );

  /** Settles, then checks: exactly these references refunded in full, once each, and recorded. */
  async function expectRefundedOnce(email: string, refunded: string[]): Promise<SandboxLedger> {
    await waitFor(
      'the refunds in the sandbox ledger',
      () => sandbox.ledger({ email }),
      (l) => l.refunds.length >= refunded.length,
    );
    // Callbacks and the provider's webhooks repeat; a duplicate refund, which must not come, has
    // no event to wait for: give it the time a webhook takes to reach catalog here, and more.
    await new Promise((r) => setTimeout(r, 1500));
    const settled = await sandbox.ledger({ email });
    expect(settled.refunds.map((r) => [r.transaction_reference, r.amount]).sort()).toEqual(
      refunded.map((reference) => [reference, PRICE]).sort(),
    );
    expect(await billingRefunds(refunded)).toEqual(
      [...refunded].sort().map((reference) => ({
        transaction_reference: reference,
        reason: 'UNUSED_CHECKOUT_PAYMENT',
        status: 'PROCESSED',
        amount: String(PRICE),
      })),
    );
    return settled;
  }

  it('two tabs pay one session: one subscription, the second payment refunded once and recorded', async () => {
    const email = uniqueEmail('two-tabs');
    const code = await newSession();
    // Both tabs press Pay before either pays at the sandbox: once the first has paid, the
    // sandbox's charge.success may complete the session before a later Pay is pressed, and the
    // hosted page then refuses that Pay (422), which is not this case.
    const firstTab = await startPay(code, email);
    const secondTab = await startPay(code, email);
    const first = await payAtSandbox(firstTab);
    const second = await payAtSandbox(secondTab);
    expect(first.reference).not.toBe(second.reference);

    expect((await callback(first.callbackUrl)).status).toBe(303);
    const completed = await getSession(code);
    expect(completed.status).toBe('COMPLETED');
    // The second tab comes back: the session stays completed by the first payment.
    expect((await callback(second.callbackUrl)).status).toBeLessThan(400);
    expect((await callback(second.callbackUrl)).status).toBeLessThan(400);
    expect(await getSession(code)).toMatchObject({ status: 'COMPLETED', subscription_id: completed.subscription_id });

    const ledger = await expectRefundedOnce(email, [second.reference]);
    expect(successes(ledger)).toHaveLength(2);
    const subscriptions = await queryDatabase<{ id: string }>(
      platform.database('billing'),
      `SELECT id FROM subscriptions WHERE checkout_session_id = (SELECT checkout_session_id FROM payments WHERE reference = $1)`,
      [first.reference],
    );
    expect(subscriptions).toEqual([{ id: completed.subscription_id }]);
    // The second payment's refund has its note: DUPLICATE, on the invoice the first payment paid (§23).
    const [invoice] = (
      await api('GET', `/api/v1/invoices?subscription_id=${completed.subscription_id}`, { apiKey: merchant.testKey })
    ).body;
    expect(invoice).toMatchObject({
      status: 'PAID',
      amount_paid: PRICE / 100,
      amount_refunded: 0,
      credit_notes: [{ number: `${invoice.number}-CN1`, amount: PRICE / 100 }],
    });
    const note = await api('GET', `/api/v1/credit-notes/${invoice.credit_notes[0].id}`, { apiKey: merchant.testKey });
    const [refund] = await queryDatabase<{ id: string }>(
      platform.database('billing'),
      'SELECT id FROM refunds WHERE transaction_reference = $1',
      [second.reference],
    );
    expect(note.body).toMatchObject({ reason: 'DUPLICATE', refund_to: 'CARD', refund_id: refund.id });
  });

  it('paid after the merchant expired the session: refunded once, the payer told so', async () => {
    const email = uniqueEmail('late');
    const code = await newSession();
    const paymentPage = await startPay(code, email);
    const expired = await api('POST', `/api/v1/checkout/sessions/${code}/expire`, { apiKey: merchant.testKey });
    expect(expired.body.status).toBe('EXPIRED');
    const late = await payAtSandbox(paymentPage);
    const page = await callback(late.callbackUrl);
    expect(page.status).toBe(200);
    expect(page.text).toContain('refunded');
    expect(await getSession(code)).toMatchObject({ status: 'EXPIRED', subscription_id: null });
    await expectRefundedOnce(email, [late.reference]);
    expect(await subscriptionsOf(email)).toEqual([]);
    // No invoice was made, so the refund has no note to go with (§23).
    const notes = await queryDatabase(
      platform.database('billing'),
      'SELECT n.id FROM credit_notes n JOIN refunds r ON r.id = n.refund_id WHERE r.transaction_reference = $1',
      [late.reference],
    );
    expect(notes).toEqual([]);
  });

  it('paid after the payer cancelled in another tab: refunded once, even with no callback', async () => {
    const email = uniqueEmail('cancelled');
    const code = await newSession();
    const paymentPage = await startPay(code, email);
    const cancel = await fetch(`${platform.gatewayUrl}/checkout/${code}/cancel`, {
      method: 'POST',
      redirect: 'manual',
    });
    expect(cancel.status).toBeLessThan(400);
    expect((await getSession(code)).status).toBe('CANCELLED');
    // The payer pays and closes the tab: only the provider's webhook (and the sweep) remain.
    const late = await payAtSandbox(paymentPage);
    await expectRefundedOnce(email, [late.reference]);
    expect((await getSession(code)).status).toBe('CANCELLED');
  });

  it('a forged or foreign reference on the callback or the webhook changes nothing', async () => {
    const victimEmail = uniqueEmail('victim');
    const victim = await newSession();
    const victimPayment = await payAtSandbox(await startPay(victim, victimEmail));
    const attacker = await newSession();
    await startPay(attacker, uniqueEmail('attacker'));

    // The attacker's callback names the victim's paid transaction, then one that does not exist.
    for (const reference of [victimPayment.reference, 'cs-forged-000000', 'T123456789']) {
      const res = await callback(`${platform.gatewayUrl}/checkout/${attacker}/callback?reference=${reference}`);
      expect(res.status).toBe(200);
      expect((await getSession(attacker)).status).toBe('PENDING');
    }
    // A correctly signed webhook (the provider's secret) naming the attacker's session and the
    // victim's transaction: still nothing.
    const body = Buffer.from(
      JSON.stringify({
        event: 'charge.success',
        data: { reference: victimPayment.reference, metadata: { checkout_session_code: attacker } },
      }),
    );
    const signature = createHmac('sha512', platform.env.SANDBOX_SECRET_KEY).update(body).digest('hex');
    const webhook = await fetch(`${platform.gatewayUrl}/api/v1/payments/paystack/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-paystack-signature': signature },
      body,
    });
    expect(webhook.status).toBe(200);
    expect(await getSession(attacker)).toMatchObject({ status: 'PENDING', subscription_id: null });

    // The victim's payment was neither used by the attacker nor refunded: it completes its session.
    expect((await callback(victimPayment.callbackUrl)).status).toBe(303);
    expect((await getSession(victim)).status).toBe('COMPLETED');
    const ledger = await sandbox.ledger({ email: victimEmail });
    expect(ledger.refunds).toEqual([]);
    expect(await billingRefunds([victimPayment.reference])).toEqual([]);
  });

  it('the expiry sweep never expires a session whose payment is in flight', async () => {
    const email = uniqueEmail('in-flight');
    const code = await newSession();
    const paymentPage = await startPay(code, email);
    // A session without a payment started, beside it: its expiry shows that the sweep has run.
    const idle = await newSession();
    // Past both sessions' expiry in the project's test time; the sweep runs at once.
    const now = (await api('GET', '/api/v1/test-clock', { apiKey: merchant.testKey })).body.now;
    const advanced = await api('POST', '/api/v1/test-clock/advance', {
      apiKey: merchant.testKey,
      body: { to: new Date(new Date(now).getTime() + 25 * 3600 * 1000).toISOString() },
    });
    expect(advanced.status).toBe(200);
    await waitFor(
      'the idle session to expire',
      () => getSession(idle),
      (s) => s.status === 'EXPIRED',
    );
    expect((await getSession(code)).status).toBe('PENDING');

    // The payer finishes: the payment completes the session, nothing is refunded.
    const paid = await payAtSandbox(paymentPage);
    expect((await callback(paid.callbackUrl)).status).toBe(303);
    expect((await getSession(code)).status).toBe('COMPLETED');
    // A refund that must not come has no event to wait for: a second for the provider's webhook.
    await new Promise((r) => setTimeout(r, 1000));
    expect((await sandbox.ledger({ email })).refunds).toEqual([]);
  });
});
