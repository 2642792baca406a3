/**
 * Benchmark "renewals": how fast the billing scheduler renews due subscriptions end to end
 * (claim FOR UPDATE SKIP LOCKED -> period invoice with its line and invoice.created -> payments
 * ledger row -> charge of the saved card at the sandbox provider over HTTP -> PAID, invoice.paid,
 * subscription.renewed), compared with a baseline of plain SQL inserts of the rows a renewal
 * writes (invoice, line, payment, two outbox events) in the same run and database server, with
 * the sandbox alone taking the same charges, and with the floor: the sandbox alone again while
 * the least work any renewal must add runs beside it (renewal-floor.ts), the most a renewal could
 * reach on this machine.
 * Run with `npm run bench -- renewals`.
 *
 * Environment: BENCH_RENEWALS [20000], BENCH_BILLING_REPLICAS [1] (billing processes renewing),
 * BENCH_CUSTOMERS [20] (saved sandbox cards the subscriptions are spread over),
 * BENCH_PROVIDER_LATENCY_MS [0] (the sandbox answers each call after that long, give or take 10%,
 * as a real provider does: SANDBOX_LATENCY_MS), BENCH_RENEWAL_TARGET_PER_SECOND [1000] (the rate
 * billing sizes its provider calls in flight for, by Little's law: PROVIDER_TARGET_CALLS_PER_SECOND),
 * BENCH_CHARGES_IN_FLIGHT [1024] (the most it may keep: PROVIDER_CALLS_IN_FLIGHT). The sandbox
 * alone sends as many at once as billing sizes itself to at the configured latency, and at least
 * 128 (the figures before the sizing were taken at 128).
 */
import type { Client } from 'pg';
import { callsInFlightFor } from '@billing/payments';
import type { PlatformUnderTest } from '@billing/testing';
import { CpuMeter, cpuMsPerUnit, cpuPerUnitRows } from './cpu-meter';
import { round, runBenchmark, table } from './measure';
import { ReadModelLagMeter } from './read-model-lag';
import { createFloorTables, leastRenewalWork, renewalEventBodies } from './renewal-floor';
import {
  activityPer,
  connectDatabase,
  databaseActivity,
  renewalBenchSettings,
  countRows,
  ledgerSuccesses,
  prepareMerchant,
  renewalsUnderWay,
  RENEWAL_AMOUNT,
  sandboxAlone,
  seedDueSubscriptions,
  startRenewalPlatform,
} from './renewal-setup';

const SETTINGS = renewalBenchSettings(0);
const RENEWALS = Number(process.env.BENCH_RENEWALS || 20_000);
const AMOUNT = RENEWAL_AMOUNT;

/** The baseline: the same rows a renewal writes, as plain multi-row INSERTs in batches of 500. */
async function baseline(db: Client, projectId: string): Promise<number> {
  await db.query(`CREATE TEMP TABLE b_invoices (LIKE invoices INCLUDING DEFAULTS)`);
  await db.query(`CREATE TEMP TABLE b_lines (LIKE invoice_lines INCLUDING DEFAULTS)`);
  await db.query(`CREATE TEMP TABLE b_payments (LIKE payments INCLUDING DEFAULTS)`);
  await db.query(`CREATE TEMP TABLE b_outbox (LIKE outbox_events INCLUDING DEFAULTS)`);
  const started = process.hrtime.bigint();
  const BATCH = 500;
  for (let offset = 0; offset < RENEWALS; offset += BATCH) {
    const n = Math.min(BATCH, RENEWALS - offset);
    await db.query('BEGIN');
    await db.query(
      `INSERT INTO b_invoices (id, project_id, livemode, number, subscription_id, customer_id, status, currency, subtotal,
         total_excluding_tax, amount, amount_due, amount_paid, period_start, period_end, due_date, paid_at,
         attempt_count, created_at, updated_at)
       SELECT ('00000000-0000-4000-8000-' || lpad((g + $2)::text, 12, '0'))::uuid, $1, false, 'INV-' || (g + $2),
         gen_random_uuid(), gen_random_uuid(), 'PAID', 'NGN', $3, $3, $3, $3, $3, now(), now(), now(), now(), 1, now(),
         now()
       FROM generate_series(1, $4) g`,
      [projectId, offset, AMOUNT, n],
    );
    await db.query(
      `INSERT INTO b_lines (id, invoice_id, position, type, description, quantity, unit_amount, amount, period_start, period_end)
       SELECT gen_random_uuid(), ('00000000-0000-4000-8000-' || lpad((g + $1)::text, 12, '0'))::uuid, 0, 'SUBSCRIPTION',
         'Bench plan', 1, $2, $2, now(), now()
       FROM generate_series(1, $3) g`,
      [offset, AMOUNT, n],
    );
    await db.query(
      `INSERT INTO b_payments (id, project_id, livemode, reference, purpose, customer_id, invoice_id, amount, currency,
         status, created_at, updated_at)
       SELECT gen_random_uuid(), $1, false, 'inv-' || (g + $2), 'INVOICE', gen_random_uuid(),
         ('00000000-0000-4000-8000-' || lpad((g + $2)::text, 12, '0'))::uuid, $3, 'NGN', 'SUCCEEDED', now(), now()
       FROM generate_series(1, $4) g`,
      [projectId, offset, AMOUNT, n],
    );
    await db.query(
      `INSERT INTO b_outbox (id, event_type, payload) SELECT gen_random_uuid(), 'invoice.paid', '{"bench": true}'::jsonb
       FROM generate_series(1, $1 * 3) g`,
      [n],
    );
    await db.query('COMMIT');
  }
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/**
 * The floor (renewal-floor.ts): the sandbox alone taking the same charges once more and, at the
 * same time, the least billing-side work of as many renewals. Done when both are.
 */
async function renewalFloor(platform: PlatformUnderTest, db: Client, projectId: string, inFlight: number) {
  const bodies = await renewalEventBodies(db);
  await createFloorTables(db);
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM subscriptions WHERE project_id = $1 AND NOT livemode ORDER BY id LIMIT $2`,
    [projectId, RENEWALS],
  );
  const cpu = new CpuMeter(platform);
  const started = process.hrtime.bigint();
  const [chargeSeconds, workSeconds] = await Promise.all([
    sandboxAlone(platform, db, RENEWALS, inFlight, 'bench-floor'),
    leastRenewalWork(
      platform,
      rows.map((r) => r.id),
      bodies,
    ).then(() => Number(process.hrtime.bigint() - started) / 1e9),
  ]);
  return { seconds: Math.max(chargeSeconds, workSeconds), chargeSeconds, workSeconds, cpu: cpu.stop() };
}

async function main(): Promise<number> {
  const sized = callsInFlightFor(SETTINGS.targetPerSecond, SETTINGS.latencyMs, SETTINGS.maxCallsInFlight);
  const aloneInFlight = Math.max(Math.min(128, SETTINGS.maxCallsInFlight), sized);
  process.stdout.write(
    `renewals benchmark: ${RENEWALS} due subscriptions, ${SETTINGS.billingReplicas} billing process(es), ${SETTINGS.customers} saved cards, ` +
      `provider latency ${SETTINGS.latencyMs} ms, sized for ${SETTINGS.targetPerSecond} renewals/s: ${sized} charges in flight at ` +
      `that latency (billing sizes itself again from the latency it measures; at most ${SETTINGS.maxCallsInFlight}; ` +
      `the sandbox alone: ${aloneInFlight})\n`,
  );
  const running = await startRenewalPlatform(SETTINGS);
  const { platform } = running;
  try {
    const merchant = await prepareMerchant(platform, SETTINGS.customers);
    const { projectId } = merchant;
    const db = await connectDatabase(platform, 'billing');
    const analyticsDb = await connectDatabase(platform, 'analytics');
    try {
      const readModelLag = new ReadModelLagMeter(db, analyticsDb);
      await readModelLag.start();
      const paidBefore = await countRows(db, `SELECT count(*) AS n FROM invoices WHERE status = 'PAID'`);
      const started = process.hrtime.bigint();
      const periodEnd = new Date(Date.now() - 1000);
      await seedDueSubscriptions(db, merchant, RENEWALS, periodEnd);
      const seeded = process.hrtime.bigint();
      const renewalCpu = new CpuMeter(platform);
      const activityBefore = await databaseActivity(db);
      let last = -1;
      while (await renewalsUnderWay(db, periodEnd)) {
        if (process.env.BENCH_TRACE) {
          const paid = (await countRows(db, `SELECT count(*) AS n FROM invoices WHERE status = 'PAID'`)) - paidBefore;
          const created = (await countRows(db, `SELECT count(*) AS n FROM invoices`)) - paidBefore;
          if (paid !== last) {
            process.stdout.write(
              `${round(Number(process.hrtime.bigint() - seeded) / 1e9, 1)} s: ${created} invoices, ${paid} paid\n`,
            );
          }
          last = paid;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      const renewSeconds = Number(process.hrtime.bigint() - seeded) / 1e9;
      const paid = (await countRows(db, `SELECT count(*) AS n FROM invoices WHERE status = 'PAID'`)) - paidBefore;
      if (paid !== RENEWALS) throw new Error(`${paid} of ${RENEWALS} renewal invoices PAID when none was left to do`);
      const renewalCpuUse = renewalCpu.stop();
      const lag = await readModelLag.measure();
      // Past the once-a-second publication of the other backends' counters.
      await new Promise((r) => setTimeout(r, 1100));
      const activity = activityPer(activityBefore, await databaseActivity(db), RENEWALS);
      const seedSeconds = Number(seeded - started) / 1e9;
      const charges = await ledgerSuccesses(platform);
      const baseSeconds = await baseline(db, projectId);
      const aloneCpu = new CpuMeter(platform);
      const aloneSeconds = await sandboxAlone(platform, db, RENEWALS, aloneInFlight);
      const aloneCpuUse = aloneCpu.stop();
      const floor = await renewalFloor(running.platform, db, projectId, aloneInFlight);
      const renewalsPerSecond = RENEWALS / renewSeconds;
      const floorPerSecond = RENEWALS / floor.seconds;
      const baselinePerSecond = RENEWALS / baseSeconds;
      const alonePerSecond = RENEWALS / aloneSeconds;
      process.stdout.write(
        `\n${table([
          ['what', 'rows', 'seconds', 'per second'],
          [
            'scheduler renewals (charged at the sandbox)',
            String(RENEWALS),
            round(renewSeconds, 2).toString(),
            round(renewalsPerSecond, 0).toString(),
          ],
          [
            'baseline: plain SQL inserts of the same rows',
            String(RENEWALS),
            round(baseSeconds, 2).toString(),
            round(baselinePerSecond, 0).toString(),
          ],
          [
            `sandbox provider alone: saved-card charges over HTTP, ${aloneInFlight} in flight`,
            String(RENEWALS),
            round(aloneSeconds, 2).toString(),
            round(alonePerSecond, 0).toString(),
          ],
          [
            `floor: the sandbox alone again, and at once the least a renewal adds (renewal-floor.ts)`,
            String(RENEWALS),
            round(floor.seconds, 2).toString(),
            round(floorPerSecond, 0).toString(),
          ],
          [
            '(seeding the due subscriptions)',
            String(RENEWALS),
            round(seedSeconds, 2).toString(),
            round(RENEWALS / seedSeconds, 0).toString(),
          ],
        ])}\nratio renewals/baseline: ${round(renewalsPerSecond / baselinePerSecond, 4)}; ` +
          `renewals/sandbox alone: ${round(renewalsPerSecond / alonePerSecond, 3)}; sandbox successful charges: ${charges}\n` +
          `floor/sandbox alone: ${round(floorPerSecond / alonePerSecond, 3)} (the most any renewal could reach here; ` +
          `its charges took ${round(floor.chargeSeconds, 2)} s, the least renewal work ${round(floor.workSeconds, 2)} s)\n\n`,
      );
      // Where the CPU went, and what 0.85 of the sandbox alone would leave for a renewal: the
      // sandbox shares the machine's cores with everything else a renewal costs.
      const budgetMs = (renewalCpuUse.cores * 1000) / (0.85 * alonePerSecond);
      const renewalMs = (renewalCpuUse.machineSeconds * 1000) / RENEWALS;
      process.stdout.write(
        `${table(
          cpuPerUnitRows([
            { label: 'renewal', use: renewalCpuUse, units: RENEWALS },
            { label: 'sandbox-alone charge', use: aloneCpuUse, units: RENEWALS },
            { label: 'floor renewal', use: floor.cpu, units: RENEWALS },
          ]),
        )}\nCPU per renewal: ${round(renewalMs, 3)} ms of the machine; at 0.85 of the sandbox alone ` +
          `(${round(0.85 * alonePerSecond, 0)}/s) the ${renewalCpuUse.cores} cores allow ${round(budgetMs, 3)} ms ` +
          `per renewal, sandbox included\n` +
          `billing's database per renewal: ${activity.commits} commits, ${activity.rowsRead} rows read by scans, ` +
          `${activity.rowsFetched} fetched by index, ${activity.rowsInserted} inserted, ${activity.rowsUpdated} updated, ` +
          `${activity.blocks} buffer blocks, ${activity.bytes} bytes more on disk\n` +
          `analytics read model behind the event stream during the renewals (${lag.events} events with facts, ` +
          `from billing's transaction to analytics applying each): p50 ${lag.p50Ms} ms, p99 ${lag.p99Ms} ms, max ${lag.maxMs} ms; every event applied ` +
          `${lag.catchUpMs} ms after billing's last\n\n`,
      );
      process.stdout.write(
        `${JSON.stringify({
          bench: 'renewals',
          renewals: RENEWALS,
          billing_replicas: SETTINGS.billingReplicas,
          provider_latency_ms: SETTINGS.latencyMs,
          target_per_s: SETTINGS.targetPerSecond,
          charges_in_flight: sized,
          max_charges_in_flight: SETTINGS.maxCallsInFlight,
          node: process.version,
          renewals_per_s: round(renewalsPerSecond, 1),
          baseline_rows_per_s: round(baselinePerSecond, 1),
          ratio: round(renewalsPerSecond / baselinePerSecond, 4),
          sandbox_charges: charges,
          sandbox_alone_in_flight: aloneInFlight,
          sandbox_alone_charges_per_s: round(alonePerSecond, 1),
          ratio_to_sandbox_alone: round(renewalsPerSecond / alonePerSecond, 3),
          floor_per_s: round(floorPerSecond, 1),
          floor_ratio_to_sandbox_alone: round(floorPerSecond / alonePerSecond, 3),
          floor_charge_seconds: round(floor.chargeSeconds, 2),
          floor_least_work_seconds: round(floor.workSeconds, 2),
          cpu_ms_per_renewal: cpuMsPerUnit(renewalCpuUse, RENEWALS),
          cpu_ms_per_sandbox_alone_charge: cpuMsPerUnit(aloneCpuUse, RENEWALS),
          cpu_ms_per_floor_renewal: cpuMsPerUnit(floor.cpu, RENEWALS),
          machine_cpu_ms_per_renewal_at_0_85: round(budgetMs, 3),
          billing_database_per_renewal: activity,
          analytics_lag_ms: {
            p50: lag.p50Ms,
            p99: lag.p99Ms,
            max: lag.maxMs,
            catch_up: lag.catchUpMs,
            events: lag.events,
          },
        })}\n`,
      );
      return charges >= RENEWALS ? 0 : 1;
    } finally {
      await db.end();
      await analyticsDb.end();
    }
  } finally {
    await running.stop();
  }
}

runBenchmark('renewals', main);
