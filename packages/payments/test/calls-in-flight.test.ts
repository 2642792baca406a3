/**
 * @lane timing-critical measures calls in flight against a provider latency
 */
import { startPlatform, type PlatformUnderTest } from '@billing/testing';
import { callsInFlightFor, PaymentProviders, paymentsEnvSchema } from '../src';

describe("calls in flight by Little's law: target rate x latency x 1.2, within [16, max]", () => {
  it('sizes 1,000 charges/s at 500 ms to 600 calls, and is capped by the budget', () => {
    expect(callsInFlightFor(1000, 500, 1024)).toBe(600);
    expect(callsInFlightFor(1000, 500, 128)).toBe(128);
    expect(callsInFlightFor(2000, 250, 4096)).toBe(600);
  });

  it('keeps at least 16 calls (or the whole budget, when smaller) against a fast provider', () => {
    expect(callsInFlightFor(1000, 0, 1024)).toBe(16);
    expect(callsInFlightFor(1000, 2, 1024)).toBe(16);
    expect(callsInFlightFor(1000, 0, 4)).toBe(4);
  });
});

/**
 * The sizing follows the provider's latency as billing measures it on its own calls: the sandbox
 * provider answering after 100 ms (SANDBOX_LATENCY_MS), where 1,000 ms were configured.
 */
describe('PaymentProviders.callsInFlight against the sandbox answering in 100 ms', () => {
  let platform: PlatformUnderTest;

  beforeAll(async () => {
    platform = await startPlatform({ only: ['sandbox-provider'], env: { SANDBOX_LATENCY_MS: '100' } });
  });
  afterAll(async () => {
    await platform?.stop();
  });

  it('uses the configured latency before any answer, then the measured one', async () => {
    const providers = new PaymentProviders(
      paymentsEnvSchema.parse({
        SANDBOX_PROVIDER_URL: platform.env.SANDBOX_PROVIDER_URL,
        SANDBOX_SECRET_KEY: platform.env.SANDBOX_SECRET_KEY,
        PROVIDER_TARGET_CALLS_PER_SECOND: '1000',
        PROVIDER_LATENCY_MS: '1000',
        PROVIDER_CALLS_IN_FLIGHT: '4096',
      }),
    );
    try {
      expect(providers.callsInFlight(false, 4096)).toBe(1200);
      const sandbox = providers.forMode(false);
      // Unknown references, answered (404 -> null) after the sandbox's 100 ms; the first calls also
      // open their connections.
      for (let round = 0; round < 4; round += 1) {
        await Promise.all(Array.from({ length: 5 }, (_, k) => sandbox.verifyTransaction(`ref-${round}-${k}`)));
      }
      const sized = providers.callsInFlight(false, 4096);
      // 1,000/s x 0.1 s x 1.2 = 120, plus what the first connections and a busy machine add to
      // the measured latency: far below the 1,200 that the configured 1,000 ms gave.
      expect(sized).toBeGreaterThanOrEqual(120);
      expect(sized).toBeLessThan(600);
    } finally {
      await providers.close();
    }
  });
});
