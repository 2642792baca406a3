import { queryDatabase, type SharedPlatform, sharedPlatform } from '@billing/testing';
import { gatewayApi, registerMerchant, type Api, type RegisteredMerchant } from './support/api';
import { payHostedCheckout } from './support/hosted-checkout';

const BACKLOG = 1200;
const AMOUNT = 2500;
const YEAR_MS = 365 * 24 * 3600_000;

/**
 * Test mode can't hurt live mode (docs/events-and-test-mode.md): a test clock moves at most 2
 * years per call, and a big backlog of due test-mode renewals is worked through beside a live
 * renewal, not in front of it.
 */
describe('test mode apart from live mode', () => {
  let platform: SharedPlatform;
  let api: Api;
  let m: RegisteredMerchant;

  const billingDb = () => platform.database('billing');
  const advance = (apiKey: string, to: Date) => api('POST', '/api/v1/test-clock/advance', { apiKey, body: { to } });
  const testNow = async (apiKey: string) => new Date((await api('GET', '/api/v1/test-clock', { apiKey })).body.now);

  beforeAll(async () => {
    // Live mode speaks Paystack's protocol; on the shared platform the sandbox plays Paystack.
    platform = await sharedPlatform();
    api = gatewayApi(platform.gatewayUrl);
    m = await registerMerchant(api, 'isolation');
  }, 240_000);
  afterAll(() => platform?.stop());

  it('moves a test clock at most 2 years per call (more -> 400 with detail), from its own time', async () => {
    // A merchant of its own: the other test's project keeps real time.
    const { testKey } = await registerMerchant(api, 'far');
    const start = await testNow(testKey);
    const tooFar = new Date(start.getTime() + 2 * YEAR_MS + 2 * 24 * 3600_000);
    const refused = await advance(testKey, tooFar);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ detail: expect.stringMatching(/at most 2 years/) });
    expect((await testNow(testKey)).getTime() - start.getTime()).toBeLessThan(60_000);

    const first = await advance(testKey, new Date(start.getTime() + YEAR_MS));
    expect(first.status).toBe(200);
    // The bound counts from the clock's time, so two steps reach what one could not.
    const second = await advance(testKey, tooFar);
    expect(second.status).toBe(200);
    expect(second.body.now).toBe(tooFar.toISOString());
  });

  it('renews a live subscription promptly while a backlog of 1,200 test renewals is due', async () => {
    const testPlan = (await api('POST', '/api/v1/plans', { apiKey: m.testKey, body: { name: 'T', amount: 25 } })).body;
    const livePlan = (await api('POST', '/api/v1/plans', { apiKey: m.liveKey, body: { name: 'L', amount: 25 } })).body;
    const customers: string[] = [];
    for (let k = 0; k < 4; k += 1) {
      customers.push((await payHostedCheckout(api, platform.gatewayUrl, m.testKey, testPlan.id, `t${k}`)).customerId);
    }
    const live = await payHostedCheckout(api, platform.gatewayUrl, m.liveKey, livePlan.id, 'live');

    // The backlog: due an hour ago in real time (test rows of a project without a clock offset),
    // so in the order of the old single pass (project, period end) it came before the live row.
    const end = new Date(Date.now() - 3600_000);
    await queryDatabase(
      billingDb(),
      `INSERT INTO subscriptions (id, project_id, livemode, customer_id, plan_id, plan_name, amount, currency, interval,
         interval_count, status, billing_anchor, current_period_start, current_period_end, metadata, created_at, updated_at)
       SELECT gen_random_uuid(), $1, false, ($2::uuid[])[1 + (g % 4)], $3, 'backlog', $4, 'NGN', 'monthly',
         1, 'ACTIVE', $5, $5, $6, '{}'::jsonb, $5, $5
       FROM generate_series(1, $7) g`,
      [m.projectId, customers, testPlan.id, AMOUNT, new Date(end.getTime() - 30 * 24 * 3600_000), end, BACKLOG],
    );
    const testRenewed = async () =>
      Number(
        (
          await queryDatabase<{ n: string }>(
            billingDb(),
            `SELECT count(*) AS n FROM invoices i JOIN subscriptions s ON s.id = i.subscription_id
              WHERE s.plan_name = 'backlog'`,
          )
        )[0].n,
      );
    const livePaidRenewals = async () =>
      Number(
        (
          await queryDatabase<{ n: string }>(
            billingDb(),
            `SELECT count(*) AS n FROM invoices WHERE subscription_id = $1 AND status = 'PAID'`,
            [live.subscriptionId],
          )
        )[0].n,
      );
    expect(await livePaidRenewals()).toBe(1);
    // The test scheduler is at work on the backlog before the live renewal falls due.
    const waitStart = Date.now();
    while ((await testRenewed()) === 0) {
      if (Date.now() - waitStart > 30_000) throw new Error('the test backlog was never started');
      await new Promise((r) => setTimeout(r, 50));
    }

    // The live subscription's period ends now (a minute ago).
    await queryDatabase(
      billingDb(),
      `UPDATE subscriptions SET current_period_end = now() - interval '1 minute' WHERE id = $1`,
      [live.subscriptionId],
    );
    const dueAt = Date.now();
    while ((await livePaidRenewals()) < 2) {
      if (Date.now() - dueAt > 30_000) throw new Error('the live renewal never came');
      await new Promise((r) => setTimeout(r, 50));
    }
    const liveRenewedAfterMs = Date.now() - dueAt;
    const backlogDoneThen = await testRenewed();
    process.stdout.write(
      `live renewal paid ${liveRenewedAfterMs} ms after falling due, ${backlogDoneThen}/${BACKLOG} test renewals done\n`,
    );
    // Renewed while the backlog was still being worked through: it did not wait behind the test
    // work (one pass for both modes, as before, stepped the whole backlog first, due an hour
    // earlier). How much of the backlog is done by then is the machine's speed, not the rule: a
    // calm machine does two test batches within the live loop's second. The bound in time is
    // loose for a loaded machine; the 200 ms poll makes it ~1 s on a calm one.
    expect(backlogDoneThen).toBeLessThan(BACKLOG);
    expect(liveRenewedAfterMs).toBeLessThan(15_000);
    // And the test backlog still moves on.
    const progressStart = Date.now();
    while ((await testRenewed()) <= backlogDoneThen) {
      if (Date.now() - progressStart > 30_000) throw new Error('the test backlog stopped');
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 240_000);
});
