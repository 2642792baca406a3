import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { readRemoteError, type PromiseClient } from '@billing/platform';
import { PaystackClient, SandboxControlsClient } from '@billing/payments';
import { billingV1, identityV1 } from '@billing/proto';
import { platformClient, queryDatabase, type SharedPlatform, sharedPlatform } from '@billing/testing';
import { addBillingPeriods } from '../src/domain/periods';

type PageOutcome = 'success' | 'declined' | 'insufficient_funds';

/**
 * CompleteCheckout over real gRPC, against payments made on the real sandbox provider's hosted
 * page, with assertions on what billing stored and what the sandbox charged and refunded.
 */
describe('billing CompleteCheckout (gRPC + sandbox provider + PostgreSQL)', () => {
  let platform: SharedPlatform;
  let billing: PromiseClient<billingV1.BillingServiceClient>;
  let identity: PromiseClient<identityV1.IdentityServiceClient>;
  let provider: PaystackClient;
  let sandbox: SandboxControlsClient;

  beforeAll(async () => {
    platform = await sharedPlatform();
    billing = await platformClient(platform, 'billing', billingV1.BillingServiceClient);
    identity = await platformClient(platform, 'identity', identityV1.IdentityServiceClient);
    const providerOptions = { baseUrl: platform.env.SANDBOX_PROVIDER_URL, secretKey: platform.env.SANDBOX_SECRET_KEY };
    provider = new PaystackClient(providerOptions);
    sandbox = new SandboxControlsClient(providerOptions);
  });
  afterAll(async () => {
    billing?.close();
    identity?.close();
    await platform?.stop();
  });

  /** A new merchant's first project: one identity knows, so that its invoices have a seller (§22). */
  const newScope = async () => {
    const registered = await identity.registerMerchant({
      email: `checkout-${randomUUID().slice(0, 8)}@example.com`,
      businessName: 'Checkout Ltd',
      password: 'password-123',
    });
    return { projectId: registered.project!.id, merchantId: registered.merchant!.id, livemode: false };
  };

  const plan = (overrides: Partial<billingV1.PlanSnapshot> = {}): billingV1.PlanSnapshot => ({
    planId: randomUUID(),
    name: 'Pro',
    amount: 500050,
    currency: 'NGN',
    interval: 'monthly',
    intervalCount: 1,
    trialPeriodDays: 0,
    taxRateIds: [],
    ...overrides,
  });

  /** What the hosted checkout does: start a transaction, then the payer picks an outcome. */
  async function payOnSandbox(email: string, amount: number, outcome: PageOutcome = 'success'): Promise<string> {
    const reference = `chk-${randomUUID()}`;
    const started = await provider.initializeTransaction({
      email,
      amount,
      currency: 'NGN',
      reference,
      callbackUrl: 'http://127.0.0.1:9/checkout/callback',
    });
    const page = await fetch(started.authorizationUrl, {
      method: 'POST',
      body: new URLSearchParams({ outcome }),
      redirect: 'manual',
    });
    expect(page.status).toBe(303);
    return reference;
  }

  const db = <R extends Record<string, unknown>>(sql: string, params: unknown[] = []) =>
    queryDatabase<R>(platform.database('billing'), sql, params);

  const eventsOf = (projectId: string) =>
    db<{ event_type: string; payload: { data: Record<string, unknown>; livemode: boolean } }>(
      `SELECT event_type, payload FROM outbox_events WHERE payload->>'project_id' = $1 ORDER BY event_type`,
      [projectId],
    );

  const remoteError = async (call: Promise<unknown>) =>
    readRemoteError(
      await call.then(
        () => null,
        (e) => e,
      ),
    );

  it('completes a paid checkout: ACTIVE subscription for one month, PAID invoice INV-000001, a provider customer', async () => {
    const scope = await newScope();
    const email = `Payer-${randomUUID().slice(0, 8)}@Example.com`;
    const sold = plan();
    const reference = await payOnSandbox(email, sold.amount);
    const sessionId = randomUUID();
    const before = Date.now();
    const done = await billing.completeCheckout({
      scope,
      checkoutSessionId: sessionId,
      transactionReference: reference,
      plan: sold,
      customerEmail: email,
      customerEmailTypedByPayer: false,
      customerName: 'Ada Obi',
      metadata: { order: '42' },
    });
    expect(done.invoiceId).not.toBe('');

    const detail = await billing.getCustomer({ scope, customerId: done.customerId });
    expect(detail.customer).toMatchObject({ id: done.customerId, email, name: 'Ada Obi', livemode: false });
    expect(detail.customer!.gatewayCustomerId).toMatch(/^CUS_/);
    expect(detail.subscriptions).toHaveLength(1);
    const subscription = detail.subscriptions[0];
    expect(subscription).toMatchObject({
      id: done.subscriptionId,
      planId: sold.planId,
      planName: 'Pro',
      status: 'ACTIVE',
      amount: 500050,
      currency: 'NGN',
      interval: 'monthly',
    });
    const start = subscription.currentPeriodStart!;
    expect(start.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(subscription.currentPeriodEnd).toEqual(addBillingPeriods(start, 'monthly', 1, 1));
    expect(subscription.cancelledAt).toBeUndefined();
    expect(detail.invoices).toHaveLength(1);
    expect(detail.invoices[0]).toMatchObject({ id: done.invoiceId, amount: 500050, currency: 'NGN', status: 'PAID' });
    expect(detail.invoices[0].paidAt).toEqual(start);

    const [invoice] = await db(
      `SELECT number, amount, amount_paid, subtotal, period_start, period_end, transaction_reference, attempt_count
         FROM invoices WHERE id = $1`,
      [done.invoiceId],
    );
    expect(invoice).toMatchObject({
      number: 'INV-000001',
      amount: '500050',
      amount_paid: '500050',
      subtotal: '500050',
      transaction_reference: reference,
      attempt_count: 1,
    });
    expect(invoice.period_start).toEqual(start);
    expect(invoice.period_end).toEqual(subscription.currentPeriodEnd);
    const lines = await db(`SELECT type, quantity, unit_amount, amount FROM invoice_lines WHERE invoice_id = $1`, [
      done.invoiceId,
    ]);
    expect(lines).toEqual([{ type: 'SUBSCRIPTION', quantity: '1', unit_amount: '500050', amount: '500050' }]);
    const cards = await db(
      `SELECT authorization_code, reusable, last4 FROM payment_authorizations WHERE customer_id = $1`,
      [done.customerId],
    );
    expect(cards).toHaveLength(1);
    expect(cards[0]).toMatchObject({ reusable: true, authorization_code: expect.stringMatching(/^AUTH_/) });
    const [sub] = await db(`SELECT metadata, checkout_session_id FROM subscriptions WHERE id = $1`, [
      done.subscriptionId,
    ]);
    expect(sub).toEqual({ metadata: { order: '42' }, checkout_session_id: sessionId });

    // Events in the outbox, money in major units (docs/api-behaviour.md §12).
    const events = await eventsOf(scope.projectId);
    expect(events.map((e) => e.event_type)).toEqual([
      'customer.created',
      'invoice.created',
      'invoice.paid',
      'subscription.created',
    ]);
    const byType = Object.fromEntries(events.map((e) => [e.event_type, e.payload.data]));
    // Untaxed: checkout sessions carry no tax rates yet (docs/api-behaviour.md §21).
    expect(byType['invoice.paid']).toEqual({
      id: done.invoiceId,
      amount: 5000.5,
      discount: 0,
      tax: 0,
      total_excluding_tax: 5000.5,
      total_tax_amounts: [],
      tax_note: null,
      credit_applied: 0,
      amount_due: 5000.5,
      currency: 'NGN',
      customer_email: email,
      status: 'PAID',
      paid_at: start.toISOString(),
      subscription_id: done.subscriptionId,
      customer_id: done.customerId,
    });
    expect(byType['subscription.created']).toMatchObject({
      id: done.subscriptionId,
      customer_email: email,
      plan_name: 'Pro',
      status: 'ACTIVE',
      amount: 5000.5,
      interval: 'monthly',
      cancelled_at: null,
      cancel_at_period_end: false,
      customer_id: done.customerId,
      plan_id: sold.planId,
    });
    expect(byType['customer.created']).toMatchObject({ id: done.customerId, email, livemode: false });
  });

  it('is exactly-once: 20 concurrent completions of one session create one customer, subscription and invoice', async () => {
    const scope = await newScope();
    const email = `race-${randomUUID().slice(0, 8)}@example.com`;
    const sold = plan({ amount: 250000 });
    const reference = await payOnSandbox(email, sold.amount);
    const request = {
      scope,
      checkoutSessionId: randomUUID(),
      transactionReference: reference,
      plan: sold,
      customerEmail: email,
      customerEmailTypedByPayer: false,
      customerName: '',
    };
    const answers = await Promise.all(Array.from({ length: 20 }, () => billing.completeCheckout(request)));
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    const [first] = answers;
    expect(first.invoiceId).not.toBe('');

    const count = async (sql: string, params: unknown[]) => Number((await db<{ n: string }>(sql, params))[0].n);
    expect(
      await count(`SELECT count(*) AS n FROM subscriptions WHERE checkout_session_id = $1`, [
        request.checkoutSessionId,
      ]),
    ).toBe(1);
    expect(await count(`SELECT count(*) AS n FROM invoices WHERE project_id = $1`, [scope.projectId])).toBe(1);
    expect(await count(`SELECT count(*) AS n FROM customers WHERE lower(email) = lower($1)`, [email])).toBe(1);
    expect(await count(`SELECT count(*) AS n FROM payments WHERE reference = $1`, [reference])).toBe(1);
    const events = await eventsOf(scope.projectId);
    const counts = events.reduce<Record<string, number>>(
      (acc, e) => ({ ...acc, [e.event_type]: (acc[e.event_type] ?? 0) + 1 }),
      {},
    );
    expect(counts).toEqual({
      'customer.created': 1,
      'subscription.created': 1,
      'invoice.created': 1,
      'invoice.paid': 1,
    });

    // A later repeat (the provider's webhook arriving after the callback) still answers the same.
    expect(await billing.completeCheckout(request)).toEqual(first);
  });

  it('starts a trial: TRIALING for the trial window, no invoice, the verification charge refunded exactly once', async () => {
    const scope = await newScope();
    const email = `trial-${randomUUID().slice(0, 8)}@example.com`;
    const sold = plan({ amount: 2000000, trialPeriodDays: 14 });
    const reference = await payOnSandbox(email, 100);
    const request = {
      scope,
      checkoutSessionId: randomUUID(),
      transactionReference: reference,
      plan: sold,
      customerEmail: email,
      customerEmailTypedByPayer: false,
      customerName: 'Trial User',
    };
    // The callback and the webhook race from the start, then stragglers repeat.
    const [first, ...racing] = await Promise.all(Array.from({ length: 10 }, () => billing.completeCheckout(request)));
    expect(first.invoiceId).toBe('');
    for (const answer of racing) expect(answer).toEqual(first);
    expect(await billing.completeCheckout(request)).toEqual(first);

    const detail = await billing.getCustomer({ scope, customerId: first.customerId });
    expect(detail.invoices).toEqual([]);
    const [subscription] = detail.subscriptions;
    expect(subscription.status).toBe('TRIALING');
    expect(subscription.currentPeriodEnd).toEqual(addBillingPeriods(subscription.currentPeriodStart!, 'daily', 14, 1));
    const [row] = await db(`SELECT trial_end, billing_anchor, current_period_end FROM subscriptions WHERE id = $1`, [
      first.subscriptionId,
    ]);
    expect(row.trial_end).toEqual(subscription.currentPeriodEnd);
    expect(row.billing_anchor).toEqual(subscription.currentPeriodEnd);

    const ledger = await sandbox.ledger({ reference });
    expect(ledger.refunds).toHaveLength(1);
    expect(ledger.refunds[0]).toMatchObject({ transaction_reference: reference, amount: 100 });
    const refunds = await db(
      `SELECT status, amount, reason, provider_refund_id FROM refunds WHERE transaction_reference = $1`,
      [reference],
    );
    expect(refunds).toEqual([
      { status: 'PROCESSED', amount: '100', reason: 'VERIFICATION', provider_refund_id: String(ledger.refunds[0].id) },
    ]);
    const events = await eventsOf(scope.projectId);
    expect(events.map((e) => e.event_type)).toEqual(['customer.created', 'subscription.created']);
    expect(events[1].payload.data).toMatchObject({ status: 'TRIALING', amount: 20000 });
  });

  it('refuses a declined payment with payment_required and the provider words, creating nothing', async () => {
    const scope = await newScope();
    const email = `declined-${randomUUID().slice(0, 8)}@example.com`;
    const sold = plan();
    const reference = await payOnSandbox(email, sold.amount, 'declined');
    const sessionId = randomUUID();
    const error = await remoteError(
      billing.completeCheckout({
        scope,
        checkoutSessionId: sessionId,
        transactionReference: reference,
        plan: sold,
        customerEmail: email,
        customerEmailTypedByPayer: false,
        customerName: '',
      }),
    );
    expect(error).toMatchObject({ code: status.FAILED_PRECONDITION, reason: 'payment_required' });
    expect(error.detail).toMatch(/declined/i);
    expect(await db(`SELECT id FROM subscriptions WHERE checkout_session_id = $1`, [sessionId])).toEqual([]);
    expect(await db(`SELECT id FROM customers WHERE project_id = $1`, [scope.projectId])).toEqual([]);
    expect(await eventsOf(scope.projectId)).toEqual([]);
  });

  it('refuses a payment of the wrong amount, an unknown reference, and a payment reused for a second session', async () => {
    const scope = await newScope();
    const email = `reuse-${randomUUID().slice(0, 8)}@example.com`;
    const sold = plan();
    const cheap = await payOnSandbox(email, 100);
    const wrongAmount = await remoteError(
      billing.completeCheckout({
        scope,
        checkoutSessionId: randomUUID(),
        transactionReference: cheap,
        plan: sold,
        customerEmail: email,
        customerEmailTypedByPayer: false,
        customerName: '',
      }),
    );
    expect(wrongAmount).toMatchObject({ code: status.FAILED_PRECONDITION, reason: 'payment_required' });
    const unknown = await remoteError(
      billing.completeCheckout({
        scope,
        checkoutSessionId: randomUUID(),
        transactionReference: `never-${randomUUID()}`,
        plan: sold,
        customerEmail: email,
        customerEmailTypedByPayer: false,
        customerName: '',
      }),
    );
    expect(unknown).toMatchObject({ code: status.FAILED_PRECONDITION, reason: 'payment_required' });

    const reference = await payOnSandbox(email, sold.amount);
    const base = {
      scope,
      transactionReference: reference,
      plan: sold,
      customerEmail: email,
      customerEmailTypedByPayer: false,
      customerName: '',
    };
    const first = await billing.completeCheckout({ ...base, checkoutSessionId: randomUUID() });
    const reused = await remoteError(billing.completeCheckout({ ...base, checkoutSessionId: randomUUID() }));
    expect(reused.code).toBe(status.FAILED_PRECONDITION);
    expect(reused.detail).toMatch(/already used/);

    // A second checkout of the same payer (any case) reuses the customer; invoices count on.
    const second = await billing.completeCheckout({
      ...base,
      transactionReference: await payOnSandbox(email, sold.amount),
      customerEmail: email.toUpperCase(),
      customerEmailTypedByPayer: false,
      checkoutSessionId: randomUUID(),
    });
    expect(second.customerId).toBe(first.customerId);
    const numbers = await db<{ number: string }>(`SELECT number FROM invoices WHERE project_id = $1 ORDER BY number`, [
      scope.projectId,
    ]);
    expect(numbers.map((n) => n.number)).toEqual(['INV-000001', 'INV-000002']);
    const events = await eventsOf(scope.projectId);
    expect(events.filter((e) => e.event_type === 'customer.created')).toHaveLength(1);
  });

  it('refuses malformed requests before touching the provider', async () => {
    const scope = await newScope();
    const base = {
      checkoutSessionId: randomUUID(),
      transactionReference: 'x',
      plan: plan(),
      customerEmail: 'a@b.co',
      customerEmailTypedByPayer: false,
      customerName: '',
    };
    expect((await remoteError(billing.completeCheckout(base))).code).toBe(status.INVALID_ARGUMENT);
    expect((await remoteError(billing.completeCheckout({ ...base, scope, checkoutSessionId: 'nope' }))).code).toBe(
      status.INVALID_ARGUMENT,
    );
    expect((await remoteError(billing.completeCheckout({ ...base, scope, plan: undefined }))).code).toBe(
      status.INVALID_ARGUMENT,
    );
    expect(
      (await remoteError(billing.completeCheckout({ ...base, scope, plan: plan({ interval: 'fortnightly' }) }))).code,
    ).toBe(status.INVALID_ARGUMENT);
  });
});
