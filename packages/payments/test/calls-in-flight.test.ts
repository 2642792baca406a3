import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
 * The sizing follows the provider's latency as billing measures it on its own calls: a stub
 * provider answering after 100 ms, where 1,000 ms were configured.
 */
describe('PaymentProviders.callsInFlight against a provider answering in 100 ms', () => {
  let server: Server;
  let baseUrl: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        setTimeout(() => {
          res.writeHead(404, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ status: false, message: 'Transaction reference not found' }));
        }, 100);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('uses the configured latency before any answer, then the measured one', async () => {
    const providers = new PaymentProviders(
      paymentsEnvSchema.parse({
        SANDBOX_PROVIDER_URL: baseUrl,
        PROVIDER_TARGET_CALLS_PER_SECOND: '1000',
        PROVIDER_LATENCY_MS: '1000',
        PROVIDER_CALLS_IN_FLIGHT: '4096',
      }),
    );
    try {
      expect(providers.callsInFlight(false, 4096)).toBe(1200);
      const sandbox = providers.forMode(false);
      // Unknown references, answered (404 -> null) after the stub's 100 ms; the first calls also
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
