/**
 * @lane timing-critical holds the provider's answers past billing's timeout
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { SandboxControlsClient } from '@billing/payments';
import { freePort, queryDatabase, startPlatform, type PlatformUnderTest } from '@billing/testing';

const AMOUNT = 2500;
/** Billing's provider timeout here (PROVIDER_TIMEOUT_MS; 15 s by default). */
const PROVIDER_TIMEOUT_MS = 2_000;
/**
 * Longer than the timeout plus settlement's verify-and-resend (PAYMENT_SETTLE_AFTER_MS 1 s):
 * billing gives up on the held request and has charged again before the held one lands.
 */
const HOLD_MS = 6_000;

/**
 * Billing reaches the sandbox through this proxy. Armed, it holds the first charge of a renewal
 * (no answer) and forwards it only after HOLD_MS: billing's call times out, settlement verifies
 * the reference while the held request has not reached the provider ("not found"), and the
 * held request lands late, as a frozen or queued provider would let it.
 */
class HoldingProxy {
  private server?: Server;
  armed = false;
  held: string[] = [];
  forwardedLate: Promise<number>[] = [];

  constructor(
    readonly port: number,
    private readonly target: string,
  ) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
  }

  stop(): Promise<void> {
    this.server?.closeAllConnections();
    return new Promise((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private async handle(req: IncomingMessage, res: import('node:http').ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const forward = () =>
      fetch(`${this.target}${req.url}`, {
        method: req.method,
        headers: { authorization: req.headers.authorization ?? '', 'content-type': 'application/json' },
        body: req.method === 'GET' ? undefined : body,
      });
    if (this.armed && req.url === '/transaction/charge_authorization' && this.held.length === 0) {
      this.held.push((JSON.parse(body.toString()) as { reference: string }).reference);
      // Never answered: the request reaches the provider only later.
      this.forwardedLate.push(new Promise((r) => setTimeout(r, HOLD_MS)).then(async () => (await forward()).status));
      return;
    }
    const answer = await forward();
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(Buffer.from(await answer.arrayBuffer()));
  }
}

/**
 * A renewal charge whose verification says "not found" never leads to a second successful
 * charge of the same invoice attempt (docs/payment-recovery.md): settlement resends it under
 * the same reference instead of moving on to a new one.
 */
describe('renewal charge unknown to the provider', () => {
  let platform: PlatformUnderTest;
  let proxy: HoldingProxy;
  let sandbox: SandboxControlsClient;
  let testKey: string;

  beforeAll(async () => {
    const sandboxPort = await freePort();
    proxy = new HoldingProxy(await freePort(), `http://127.0.0.1:${sandboxPort}`);
    await proxy.start();
    platform = await startPlatform({
      // What the suite reaches; the others' start would only cost CPU.
      only: ['identity', 'sandbox-provider', 'billing', 'catalog', 'gateway'],
      env: {
        SANDBOX_PROVIDER_PORT: String(sandboxPort),
        SANDBOX_PROVIDER_URL: `http://127.0.0.1:${proxy.port}`,
        RENEWAL_POLL_MS: '200',
        PAYMENT_SETTLE_AFTER_MS: '1000',
        PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS),
      },
    });
    sandbox = new SandboxControlsClient({
      baseUrl: `http://127.0.0.1:${sandboxPort}`,
      secretKey: platform.env.SANDBOX_SECRET_KEY,
    });
    const registered = await api('POST', '/auth/register', {
      email: `notfound-${randomUUID().slice(0, 8)}@example.com`,
      business_name: 'Not Found Ltd',
      password: 'password-123',
    });
    testKey = (registered.body as { api_keys: { key: string }[] }).api_keys[0].key;
  }, 180_000);
  afterAll(async () => {
    await platform?.stop();
    await proxy?.stop();
  });

  async function api(method: string, path: string, body?: unknown) {
    const res = await fetch(`${platform.gatewayUrl}/api/v1${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(testKey ? { 'x-api-key': testKey } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  const form = (fields: Record<string, string>) => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
    redirect: 'manual' as const,
  });

  async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  it('resends under the same reference: one successful charge of the invoice, even when the first arrives late', async () => {
    const planId = (await api('POST', '/plans', { name: 'Monthly', amount: AMOUNT / 100 })).body.id as string;
    const session = (await api('POST', '/checkout/sessions', { plan_id: planId })).body as { code: string };
    const email = `payer-${randomUUID().slice(0, 8)}@example.com`;
    const pay = await fetch(`${platform.gatewayUrl}/checkout/${session.code}/pay`, form({ email }));
    const outcome = await fetch(pay.headers.get('location')!, form({ outcome: 'success' }));
    await fetch(outcome.headers.get('location')!, { redirect: 'manual' });
    const subscriptionId = (await api('GET', `/checkout/sessions/${session.code}`)).body.subscription_id as string;
    expect(subscriptionId).toBeTruthy();

    // The period ends now: the scheduler renews it, and its charge is held.
    proxy.armed = true;
    const billingDb = platform.database('billing');
    await queryDatabase(
      billingDb,
      `UPDATE subscriptions SET current_period_end = now() - interval '1 second' WHERE id = $1`,
      [subscriptionId],
    );
    await waitUntil('the renewal charge to be held', async () => proxy.held.length === 1);
    const [reference] = proxy.held;
    expect(reference).toMatch(/^inv-[0-9a-f]{32}-1$/);

    // Billing times out (PROVIDER_TIMEOUT_MS), settlement finds "not found" and resends the same charge.
    const paid = async () =>
      (
        await queryDatabase<{ status: string }>(
          billingDb,
          `SELECT i.status FROM invoices i JOIN payments p ON p.invoice_id = i.id WHERE p.reference = $1`,
          [reference],
        )
      )[0]?.status === 'PAID';
    await waitUntil('the renewal invoice paid', paid, 90_000);
    // The held request now reaches the provider: the same reference, so no second charge.
    expect(await proxy.forwardedLate[0]).toBe(200);
    // What must not happen has no event to wait for: a second charge or payment row after the
    // late request. A second is what the sandbox's webhook needs to reach billing on this machine.
    await new Promise((r) => setTimeout(r, 1000));

    const renewals = (await sandbox.ledger({ email })).transactions.filter((t) => t.channel === 'authorization');
    expect(renewals.map((t) => [t.reference, t.status])).toEqual([[reference, 'success']]);
    const payments = await queryDatabase<{ reference: string; status: string }>(
      billingDb,
      `SELECT p.reference, p.status FROM payments p JOIN invoices i ON i.id = p.invoice_id
        WHERE i.subscription_id = $1 AND p.reference LIKE 'inv-%' ORDER BY p.reference`,
      [subscriptionId],
    );
    expect(payments).toEqual([{ reference, status: 'SUCCEEDED' }]);
  }, 180_000);
});
