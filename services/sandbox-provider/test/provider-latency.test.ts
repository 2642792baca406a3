/**
 * @lane timing-critical measures the provider's latency
 */
import { PaystackClient, SandboxControlsClient } from '@billing/payments';
import { startPlatform, type PlatformUnderTest } from '@billing/testing';

const LATENCY_MS = 1000;

/** SANDBOX_LATENCY_MS makes the provider's API as slow as a real provider (docs/configuration.md). */
describe('sandbox provider latency (SANDBOX_LATENCY_MS)', () => {
  let platform: PlatformUnderTest;
  let provider: PaystackClient;

  beforeAll(async () => {
    platform = await startPlatform({ only: ['sandbox-provider'], env: { SANDBOX_LATENCY_MS: String(LATENCY_MS) } });
    provider = new PaystackClient({
      baseUrl: platform.env.SANDBOX_PROVIDER_URL,
      secretKey: platform.env.SANDBOX_SECRET_KEY,
    });
  });
  afterAll(async () => {
    await provider?.close();
    await platform?.stop();
  });

  const timed = async <T>(call: () => Promise<T>): Promise<[T, number]> => {
    const started = performance.now();
    const value = await call();
    return [value, performance.now() - started];
  };

  it('answers every Paystack API call no sooner than the latency less its 10% jitter, and still correctly', async () => {
    const reference = `latency-${platform.runId.replace(/_/g, '-')}`;
    const [started, initializeMs] = await timed(() =>
      provider.initializeTransaction({
        email: 'payer@example.com',
        amount: 5000,
        currency: 'NGN',
        reference,
        callbackUrl: 'http://127.0.0.1/return',
      }),
    );
    expect(started.reference).toBe(reference);
    const [verified, verifyMs] = await timed(() => provider.verifyTransaction(reference));
    expect(verified?.status).toBe('pending');
    for (const ms of [initializeMs, verifyMs]) expect(ms).toBeGreaterThanOrEqual(LATENCY_MS * 0.9);
  });

  it('runs calls sent together side by side, not one after another', async () => {
    const [, ms] = await timed(() =>
      Promise.all(Array.from({ length: 8 }, (_, k) => provider.createCustomer({ email: `together-${k}@example.com` }))),
    );
    // Eight calls one after another would take at least 8 x 900 ms.
    expect(ms).toBeLessThan(LATENCY_MS * 0.9 * 8);
  });

  it('does not slow the sandbox controls, which are the test harness, not the provider', async () => {
    const controls = new SandboxControlsClient({
      baseUrl: platform.env.SANDBOX_PROVIDER_URL,
      secretKey: platform.env.SANDBOX_SECRET_KEY,
    });
    const [ledger, ms] = await timed(() => controls.ledger());
    expect(Array.isArray(ledger.transactions)).toBe(true);
    expect(ms).toBeLessThan(LATENCY_MS * 0.9);
  });
});
