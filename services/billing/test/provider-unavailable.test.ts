import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { createPromiseClient, readRemoteError, type PromiseClient } from '@billing/platform';
import { billingV1 } from '@billing/proto';
import { freePort, queryDatabase, startPlatform, type PlatformUnderTest } from '@billing/testing';

/** Billing with a payment provider that does not answer: safe-to-retry errors, nothing half-made. */
describe('billing when the payment provider is unreachable', () => {
  let platform: PlatformUnderTest;
  let billing: PromiseClient<billingV1.BillingServiceClient>;
  const scope = { projectId: randomUUID(), merchantId: randomUUID(), livemode: false };

  beforeAll(async () => {
    // A port nobody listens on.
    platform = await startPlatform({
      only: ['billing'],
      env: { SANDBOX_PROVIDER_URL: `http://127.0.0.1:${await freePort()}` },
    });
    billing = createPromiseClient(
      billingV1.BillingServiceClient,
      platform.env.BILLING_GRPC_URL,
      20_000,
      platform.grpcCredentials('gateway'),
    );
  });
  afterAll(async () => {
    billing?.close();
    await platform?.stop();
  });

  const failure = async (call: Promise<unknown>) =>
    readRemoteError(
      await call.then(
        () => null,
        (e) => e,
      ),
    );

  it('answers CreateCustomer with UNAVAILABLE and creates no customer', async () => {
    const error = await failure(billing.createCustomer({ scope, email: 'nobody@example.com' }));
    expect(error.code).toBe(status.UNAVAILABLE);
    expect(await queryDatabase(platform.database('billing'), 'SELECT id FROM customers')).toEqual([]);
    expect(await queryDatabase(platform.database('billing'), 'SELECT id FROM outbox_events')).toEqual([]);
  });

  it('answers CompleteCheckout with UNAVAILABLE, so the caller retries later', async () => {
    const error = await failure(
      billing.completeCheckout({
        scope,
        checkoutSessionId: randomUUID(),
        transactionReference: 'ref-1',
        plan: {
          planId: randomUUID(),
          name: 'Pro',
          amount: 1000,
          currency: 'NGN',
          taxRateIds: [],
          interval: 'monthly',
          intervalCount: 1,
          trialPeriodDays: 0,
        },
        customerEmail: 'payer@example.com',
        customerEmailTypedByPayer: false,
        customerName: '',
      }),
    );
    expect(error.code).toBe(status.UNAVAILABLE);
    expect(await queryDatabase(platform.database('billing'), 'SELECT id FROM subscriptions')).toEqual([]);
  });

  it('refuses live mode clearly when no live provider is configured', async () => {
    const error = await failure(
      billing.createCustomer({ scope: { ...scope, livemode: true }, email: 'l@example.com' }),
    );
    expect(error.code).toBe(status.FAILED_PRECONDITION);
    expect(error.detail).toMatch(/PAYSTACK_SECRET_KEY/);
  });
});
