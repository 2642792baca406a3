/**
 * Benchmark "billing-day": a merchant's billing day at a real provider's latency. 100,000
 * subscriptions fall due at the same instant and the provider answers every charge after about
 * 500 ms (SANDBOX_LATENCY_MS); the billing scheduler renews them all (claim, invoice, payment,
 * charge at the sandbox over HTTP, signed charge.success webhook back through the gateway). It
 * prints the time from the due instant until the last invoice is PAID, and checks exactly-once
 * in two records: invoices per subscription and period in billing's database, charges per
 * invoice in the sandbox's own ledger (min and max over every invoice: both must be 1). The
 * baseline, from the same run: the sandbox alone taking as many charges at the same latency and
 * as many in flight as billing sized itself to (the provider's own cap on the day).
 * Run with `npm run bench -- billing-day`.
 *
 * Environment (docs/configuration.md): BENCH_BILLING_DAY_SUBSCRIPTIONS [100000],
 * BENCH_PROVIDER_LATENCY_MS [500], BENCH_RENEWAL_TARGET_PER_SECOND [1000] (the rate billing sizes
 * its calls in flight for), BENCH_CHARGES_IN_FLIGHT [1024] (the most it may keep),
 * BENCH_CUSTOMERS [20], BENCH_BILLING_REPLICAS [1].
 */
import { callsInFlightFor } from '@billing/payments';
import { round, runBenchmark, table } from './measure';
import {
  connectDatabase,
  renewalBenchSettings,
  prepareMerchant,
  sandboxAlone,
  renewalsUnderWay,
  seedDueSubscriptions,
  startRenewalPlatform,
} from './renewal-setup';

const SETTINGS = renewalBenchSettings(500);
const SUBSCRIPTIONS = Number(process.env.BENCH_BILLING_DAY_SUBSCRIPTIONS || 100_000);
/** The issue's goal for the whole day. */
const GOAL_SECONDS = 120;
/** Time to seed the subscriptions before they fall due (seeding 100,000 takes about 2 s here). */
const DUE_AFTER_MS = 10_000;

interface ExactlyOnce {
  invoices: number;
  /** Invoices per seeded subscription, all of one period (0 when a subscription has none). */
  invoicesPerPeriod: { min: number; max: number };
  /** Charge attempts in the sandbox's ledger per invoice, and successful ones. */
  chargesPerInvoice: { min: number; max: number };
  successesPerInvoice: { min: number; max: number };
}

async function main(): Promise<number> {
  // What billing should size itself to at this latency, and what the baseline sends at once.
  const inFlight = callsInFlightFor(SETTINGS.targetPerSecond, SETTINGS.latencyMs, SETTINGS.maxCallsInFlight);
  process.stdout.write(
    `billing-day benchmark: ${SUBSCRIPTIONS} subscriptions due at one instant, ${SETTINGS.billingReplicas} billing process(es), ` +
      `provider latency ${SETTINGS.latencyMs} ms, sized for ${SETTINGS.targetPerSecond} renewals/s: ${inFlight} charges in flight ` +
      `at that latency (billing sizes itself again from the latency it measures; at most ${SETTINGS.maxCallsInFlight})\n`,
  );
  const running = await startRenewalPlatform(SETTINGS);
  const { platform } = running;
  try {
    const merchant = await prepareMerchant(platform, SETTINGS.customers);
    const db = await connectDatabase(platform, 'billing');
    try {
      const seedStarted = Date.now();
      const dueAt = new Date(seedStarted + DUE_AFTER_MS);
      await seedDueSubscriptions(db, merchant, SUBSCRIPTIONS, dueAt);
      const seedSeconds = (Date.now() - seedStarted) / 1000;
      if (Date.now() >= dueAt.getTime()) throw new Error(`seeding took ${seedSeconds} s, past the due instant`);
      // Renewed: the new period's invoice PAID (it starts where the seeded period ended).
      const renewed = async () =>
        Number(
          (
            await db.query<{ n: string }>(
              `SELECT count(*) AS n FROM invoices WHERE status = 'PAID' AND period_start = $1`,
              [dueAt],
            )
          ).rows[0].n,
        );
      let lastPaid = -1;
      // Until the due instant nothing is under way; then until nothing is left to do.
      await new Promise((r) => setTimeout(r, Math.max(0, dueAt.getTime() - Date.now())));
      while (await renewalsUnderWay(db, dueAt)) {
        if (process.env.BENCH_TRACE) {
          const paid = await renewed();
          if (paid !== lastPaid) {
            process.stdout.write(`${round((Date.now() - dueAt.getTime()) / 1000, 1)} s after due: ${paid} paid\n`);
          }
          lastPaid = paid;
        }
        await new Promise((r) => setTimeout(r, 250));
      }
      const daySeconds = (Date.now() - dueAt.getTime()) / 1000;
      const paid = await renewed();
      if (paid !== SUBSCRIPTIONS) throw new Error(`${paid} of ${SUBSCRIPTIONS} renewals PAID when none was left to do`);
      // Late webhooks and settlement are over when the day is: wait for charges still being answered.
      await new Promise((r) => setTimeout(r, 2000));
      const once = await exactlyOnce(platform, db, dueAt);
      const aloneSeconds = await sandboxAlone(platform, db, SUBSCRIPTIONS, inFlight);
      const renewalsPerSecond = SUBSCRIPTIONS / daySeconds;
      const alonePerSecond = SUBSCRIPTIONS / aloneSeconds;
      const exact =
        once.invoices === SUBSCRIPTIONS &&
        once.invoicesPerPeriod.min === 1 &&
        once.invoicesPerPeriod.max === 1 &&
        once.chargesPerInvoice.min === 1 &&
        once.chargesPerInvoice.max === 1 &&
        once.successesPerInvoice.min === 1 &&
        once.successesPerInvoice.max === 1;
      process.stdout.write(
        `\n${table([
          ['what', 'charges', 'seconds', 'per second'],
          [
            'billing day: due instant -> last renewal PAID',
            String(SUBSCRIPTIONS),
            round(daySeconds, 1).toString(),
            round(renewalsPerSecond, 0).toString(),
          ],
          [
            `baseline: sandbox alone, same charges, ${inFlight} in flight`,
            String(SUBSCRIPTIONS),
            round(aloneSeconds, 1).toString(),
            round(alonePerSecond, 0).toString(),
          ],
          [
            '(seeding the due subscriptions)',
            String(SUBSCRIPTIONS),
            round(seedSeconds, 1).toString(),
            round(SUBSCRIPTIONS / seedSeconds, 0).toString(),
          ],
        ])}\n` +
          `goal: last renewal within ${GOAL_SECONDS} s of the due instant: ${daySeconds <= GOAL_SECONDS ? 'met' : 'unmet'}; ` +
          `ratio to the sandbox alone: ${round(renewalsPerSecond / alonePerSecond, 3)}\n` +
          `exactly once: ${once.invoices} invoices; invoices per subscription-period min ${once.invoicesPerPeriod.min} ` +
          `max ${once.invoicesPerPeriod.max}; sandbox ledger charges per invoice min ${once.chargesPerInvoice.min} ` +
          `max ${once.chargesPerInvoice.max} (successful: min ${once.successesPerInvoice.min} ` +
          `max ${once.successesPerInvoice.max})${exact ? '' : ' -- NOT EXACTLY ONCE'}\n\n`,
      );
      process.stdout.write(
        `${JSON.stringify({
          bench: 'billing-day',
          subscriptions: SUBSCRIPTIONS,
          billing_replicas: SETTINGS.billingReplicas,
          provider_latency_ms: SETTINGS.latencyMs,
          target_per_s: SETTINGS.targetPerSecond,
          charges_in_flight: inFlight,
          node: process.version,
          seconds_to_last_renewal: round(daySeconds, 1),
          renewals_per_s: round(renewalsPerSecond, 1),
          sandbox_alone_seconds: round(aloneSeconds, 1),
          sandbox_alone_charges_per_s: round(alonePerSecond, 1),
          invoices: once.invoices,
          invoices_per_period_min: once.invoicesPerPeriod.min,
          invoices_per_period_max: once.invoicesPerPeriod.max,
          charges_per_invoice_min: once.chargesPerInvoice.min,
          charges_per_invoice_max: once.chargesPerInvoice.max,
          successes_per_invoice_min: once.successesPerInvoice.min,
          successes_per_invoice_max: once.successesPerInvoice.max,
        })}\n`,
      );
      return exact ? 0 : 1;
    } finally {
      await db.end();
    }
  } finally {
    await running.stop();
  }
}

/**
 * Exactly-once, from two records: billing's invoices per seeded subscription, which had one
 * period to bill (every one counted, those without an invoice as 0), and the sandbox ledger's saved-card
 * charges per invoice (the invoice id billing sends in each charge's metadata; every invoice
 * counted, those never charged as 0).
 */
async function exactlyOnce(
  platform: Awaited<ReturnType<typeof startRenewalPlatform>>['platform'],
  db: Awaited<ReturnType<typeof connectDatabase>>,
  dueAt: Date,
): Promise<ExactlyOnce> {
  // The seeded subscriptions are the ones anchored a month before the due instant.
  const anchor = new Date(dueAt.getTime() - 30 * 24 * 3600 * 1000);
  const periods = (
    await db.query<{ subscriptions: number; min: number; max: number }>(
      `SELECT count(*)::int AS subscriptions, min(n)::int AS min, max(n)::int AS max FROM (
         SELECT count(i.id) AS n FROM subscriptions s LEFT JOIN invoices i ON i.subscription_id = s.id
          WHERE s.billing_anchor = $1 GROUP BY s.id) per_subscription`,
      [anchor],
    )
  ).rows[0];
  if (periods.subscriptions !== SUBSCRIPTIONS) {
    throw new Error(`${periods.subscriptions} seeded subscriptions found, not ${SUBSCRIPTIONS}`);
  }
  const invoiceIds = (
    await db.query<{ id: string }>(
      `SELECT i.id FROM invoices i JOIN subscriptions s ON s.id = i.subscription_id WHERE s.billing_anchor = $1`,
      [anchor],
    )
  ).rows.map((r) => r.id);
  const ledger = await connectDatabase(platform, 'sandbox-provider');
  try {
    const charges = (
      await ledger.query<{ invoice_id: string; attempts: number; successes: number }>(
        `SELECT metadata->>'invoice_id' AS invoice_id, count(*)::int AS attempts,
                (count(*) FILTER (WHERE status = 'success'))::int AS successes
           FROM transactions WHERE channel = 'authorization' AND metadata ? 'invoice_id'
          GROUP BY 1`,
      )
    ).rows;
    const byInvoice = new Map(charges.map((c) => [c.invoice_id, c]));
    const spread = (values: number[]) =>
      values.length === 0
        ? { min: 0, max: 0 }
        : { min: values.reduce((a, b) => Math.min(a, b)), max: values.reduce((a, b) => Math.max(a, b)) };
    return {
      invoices: invoiceIds.length,
      invoicesPerPeriod: { min: periods.min ?? 0, max: periods.max ?? 0 },
      chargesPerInvoice: spread(invoiceIds.map((id) => byInvoice.get(id)?.attempts ?? 0)),
      successesPerInvoice: spread(invoiceIds.map((id) => byInvoice.get(id)?.successes ?? 0)),
    };
  } finally {
    await ledger.end();
  }
}

runBenchmark('billing-day', main);
