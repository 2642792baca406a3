/**
 * Benchmark "analytics": the three analytics routes (GET /analytics/mrr and /analytics/revenue of
 * 12 months, GET /analytics/summary) through the gateway with a merchant's test key, and the
 * analytics.v1 queries behind them (GetMrrSeries, GetRevenueSeries, GetSummary) over gRPC with the
 * gateway's certificate, against a project of 1,000,000 subscriptions with a year of history and,
 * in the same run as the baseline, a project of 100 (docs/api-behaviour.md §25: as fast at
 * 1,000,000 as at 100). The platform runs with the rate limits relaxed (RELAXED_LIMITS), so that
 * the figure is the route's, not the limiter's refusal. The
 * read model of both is written with SQL producing the rows the apply path writes (seedProject
 * below); a third and fourth project of SAMPLE subscriptions check that: the same histories sent
 * as events through the running consumer give exactly the figures of the SQL-seeded one. Prints
 * p50/p99 per query and size, and the ratio 1M/100 (goal: p99 < 100 ms and <= 2x). Run with
 * `npm run bench -- analytics`.
 *
 * Environment: BENCH_ANALYTICS_SUBSCRIPTIONS [1000000], BENCH_ANALYTICS_CALLS [400], BENCH_ANALYTICS_WARMUP_CALLS [50].
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { databaseUrl, type EventEnvelope, type PromiseClient } from '@billing/platform';
import { analyticsV1 } from '@billing/proto';
import {
  platformClient,
  platformEvents,
  RELAXED_LIMITS,
  startPlatform,
  type PlatformUnderTest,
} from '@billing/testing';
import { percentile, registerBenchMerchant, round, runBenchmark, table } from './measure';

const LARGE = Number(process.env.BENCH_ANALYTICS_SUBSCRIPTIONS || 1_000_000);
const SMALL = 100;
/** Subscriptions of the apply-path check (each with a year of events). */
const SAMPLE = 300;
const CALLS = Number(process.env.BENCH_ANALYTICS_CALLS || 400);
const WARMUP_CALLS = Number(process.env.BENCH_ANALYTICS_WARMUP_CALLS || 50);
const CURRENCY = 'NGN';

/** The twelve months before the current one, `YYYY-MM`, oldest first: a year of history before as_of. */
function lastTwelveMonths(now: Date): string[] {
  return Array.from({ length: 12 }, (_, i) => {
    const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 12 + i, 1));
    return d.toISOString().slice(0, 7);
  });
}

/**
 * The synthetic history, one rule for SQL and events alike. Subscription i (0-based) starts
 * ACTIVE in month i % 12 of the year (its day 1 + i % 28, 12:00 UTC) at an MRR of
 * 1,000 + (i % 100) x 10, and pays that on the same day of every month it is active; one in ten
 * (i % 10 = 0) not started in the last month is cancelled on the 15th of the next month, where
 * 500 is refunded. Customer: i / 2 (two subscriptions each).
 */
const history = {
  startMonth: (i: number) => i % 12,
  day: (i: number) => 1 + (i % 28),
  mrr: (i: number) => 1000 + (i % 100) * 10,
  churnMonth: (i: number) => (i % 10 === 0 && i % 12 < 11 ? (i % 12) + 1 : null),
  customer: (i: number) => `cus_${Math.floor(i / 2)}`,
  refund: 500,
};

/** The same rule in SQL, over generate_series(0, n - 1) AS i (see `history`). */
const SUBSCRIPTIONS_SQL = `
  SELECT i,
         'sub_' || i AS subscription_id,
         'cus_' || (i / 2) AS customer_id,
         i % 12 AS start_m,
         1 + i % 28 AS day,
         1000 + (i % 100) * 10 AS mrr,
         CASE WHEN i % 10 = 0 AND i % 12 < 11 THEN i % 12 + 1 END AS churn_m
    FROM generate_series(0, $4::int - 1) AS i`;

/** A payment on the subscription's day of every month it is active (start month included, churn month not). */
const PAYMENTS_SQL = `
  SELECT pm.m, s.day, s.mrr FROM (${SUBSCRIPTIONS_SQL}) s,
         LATERAL generate_series(s.start_m, coalesce(s.churn_m - 1, 11)) AS pm(m)`;

/**
 * Writes one project's read model for `n` subscriptions of `history` with SQL: the rows the
 * consumer's apply path writes for the same facts (checked by the SAMPLE projects).
 */
async function seedProject(db: Client, projectId: string, n: number, months: string[], livemode = true): Promise<void> {
  const at = (month: string, day: string) =>
    `(${month} || '-' || lpad(${day}::text, 2, '0') || 'T12:00:00Z')::timestamptz`;
  const bind = [projectId, livemode, months, n];
  // A refund of `history.refund` on the 15th of a churn month. Every statement takes the four parameters; one that does not use them all still types them.
  const insert = (sql: string) =>
    db.query(`WITH typed AS (SELECT $1::uuid, $2::boolean, $3::text[], $4::int) ${sql.trim()}`, bind);
  await db.query('BEGIN');
  await insert(
    `INSERT INTO subscription_states (project_id, livemode, subscription_id, currency, customer_id, status, contributing,
       mrr, last_fact_at, ever_contributed, change_month, month_start_contributing, month_start_mrr,
       contributed_before_month, last_churn_day)
     SELECT $1::uuid, $2::boolean, s.subscription_id, '${CURRENCY}', s.customer_id,
            CASE WHEN s.churn_m IS NULL THEN 'ACTIVE' ELSE 'CANCELLED' END,
            s.churn_m IS NULL, CASE WHEN s.churn_m IS NULL THEN s.mrr ELSE 0 END,
            CASE WHEN s.churn_m IS NULL THEN ${at('($3::text[])[s.start_m + 1]', 's.day')}
                 ELSE (($3::text[])[s.churn_m + 1] || '-15T12:00:00Z')::timestamptz END,
            true, ($3::text[])[coalesce(s.churn_m, s.start_m) + 1],
            s.churn_m IS NOT NULL, CASE WHEN s.churn_m IS NULL THEN 0 ELSE s.mrr END, s.churn_m IS NOT NULL,
            CASE WHEN s.churn_m IS NOT NULL THEN (($3::text[])[s.churn_m + 1] || '-15')::date END
       FROM (${SUBSCRIPTIONS_SQL}) s`,
  );
  await insert(
    `INSERT INTO mrr_months (project_id, livemode, currency, month, new, churned, active_delta)
     SELECT $1::uuid, $2::boolean, '${CURRENCY}', ($3::text[])[m + 1], sum(new), sum(churned), sum(delta)
       FROM (SELECT s.start_m AS m, s.mrr AS new, 0 AS churned, 1 AS delta FROM (${SUBSCRIPTIONS_SQL}) s
             UNION ALL
             SELECT s.churn_m, 0, s.mrr, -1 FROM (${SUBSCRIPTIONS_SQL}) s WHERE s.churn_m IS NOT NULL) moves
      GROUP BY m`,
  );
  await insert(
    `INSERT INTO revenue_months (project_id, livemode, currency, month, gross, refunds, tax)
     SELECT $1::uuid, $2::boolean, '${CURRENCY}', ($3::text[])[m + 1], sum(gross), sum(refunds), 0
       FROM (SELECT m, mrr AS gross, 0 AS refunds FROM (${PAYMENTS_SQL}) p
             UNION ALL
             SELECT s.churn_m, 0, ${history.refund} FROM (${SUBSCRIPTIONS_SQL}) s WHERE s.churn_m IS NOT NULL) r
      GROUP BY m`,
  );
  await insert(
    `INSERT INTO daily_figures (project_id, livemode, currency, day, last_churns, first_contributions,
       contributing_delta, gross, refunds)
     SELECT $1::uuid, $2::boolean, '${CURRENCY}', d, sum(churns), sum(firsts), sum(delta), sum(gross), sum(refunds)
       FROM (SELECT ${at('($3::text[])[s.start_m + 1]', 's.day')}::date AS d, 0 AS churns, 1 AS firsts, 1 AS delta,
                    0 AS gross, 0 AS refunds FROM (${SUBSCRIPTIONS_SQL}) s
             UNION ALL
             SELECT (($3::text[])[s.churn_m + 1] || '-15')::date, 1, 0, -1, 0, ${history.refund}
               FROM (${SUBSCRIPTIONS_SQL}) s WHERE s.churn_m IS NOT NULL
             UNION ALL
             SELECT ${at('($3::text[])[p.m + 1]', 'p.day')}::date, 0, 0, 0, p.mrr, 0 FROM (${PAYMENTS_SQL}) p) f
      GROUP BY d`,
  );
  await insert(
    `INSERT INTO customer_contributions (project_id, livemode, currency, customer_id, contributing_subscriptions)
     SELECT $1::uuid, $2::boolean, '${CURRENCY}', s.customer_id, count(*) FILTER (WHERE s.churn_m IS NULL)
       FROM (${SUBSCRIPTIONS_SQL}) s GROUP BY s.customer_id`,
  );
  await insert(
    `INSERT INTO currency_totals (project_id, livemode, currency, mrr, active, trialing, past_due, customers)
     SELECT $1::uuid, $2::boolean, '${CURRENCY}', coalesce(sum(mrr), 0), count(*), 0, 0, count(DISTINCT customer_id)
       FROM (${SUBSCRIPTIONS_SQL}) s WHERE s.churn_m IS NULL`,
  );
  await db.query('COMMIT');
}

/** The same histories as billing's events would carry them, oldest first. */
function historyEvents(projectId: string, n: number, months: string[]): EventEnvelope[] {
  const events: EventEnvelope[] = [];
  const envelope = (event: string, createdAt: string, analytics: object): EventEnvelope => ({
    id: randomUUID(),
    event,
    data: {},
    created_at: createdAt,
    project_id: projectId,
    livemode: true,
    analytics,
  });
  const on = (m: number, day: number) => `${months[m]}-${String(day).padStart(2, '0')}T12:00:00.000Z`;
  for (let i = 0; i < n; i += 1) {
    const subscription = { kind: 'subscription_mrr', subscription_id: `sub_${i}`, customer_id: history.customer(i) };
    const start = history.startMonth(i);
    const churn = history.churnMonth(i);
    const mrr = history.mrr(i);
    events.push(
      envelope('subscription.created', on(start, history.day(i)), {
        ...subscription,
        currency: CURRENCY,
        status: 'ACTIVE',
        contributing: true,
        mrr,
      }),
    );
    for (let m = start; m <= (churn === null ? 11 : churn - 1); m += 1) {
      events.push(
        envelope('invoice.paid', on(m, history.day(i)), {
          kind: 'invoice_payment',
          invoice_id: `in_${i}_${m}`,
          customer_id: history.customer(i),
          currency: CURRENCY,
          charged: mrr,
          tax: 0,
        }),
      );
    }
    if (churn !== null) {
      events.push(
        envelope('subscription.cancelled', on(churn, 15), {
          ...subscription,
          currency: CURRENCY,
          status: 'CANCELLED',
          contributing: false,
          mrr: 0,
        }),
        envelope('refund.processed', on(churn, 15), {
          kind: 'refund',
          refund_id: `rf_${i}`,
          currency: CURRENCY,
          amount: history.refund,
        }),
      );
    }
  }
  return events.sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
}

type Analytics = PromiseClient<analyticsV1.AnalyticsServiceClient>;
const scopeOf = (projectId: string, livemode: boolean) => ({ projectId, merchantId: randomUUID(), livemode });

const queries = (analytics: Analytics, projectId: string, months: string[], livemode = true) => ({
  GetMrrSeries: () =>
    analytics.getMrrSeries({
      scope: scopeOf(projectId, livemode),
      currency: CURRENCY,
      from: months[0],
      to: months[11],
    }),
  GetRevenueSeries: () =>
    analytics.getRevenueSeries({
      scope: scopeOf(projectId, livemode),
      currency: CURRENCY,
      from: months[0],
      to: months[11],
    }),
  GetSummary: () => analytics.getSummary({ scope: scopeOf(projectId, livemode), currency: CURRENCY }),
});

/** A merchant's test-mode project through the gateway: its test key and the project's id. */
interface RouteProject {
  projectId: string;
  testKey: string;
}

async function routeProject(gatewayUrl: string, label: string): Promise<RouteProject> {
  const merchant = await registerBenchMerchant(gatewayUrl, randomUUID(), label);
  const res = await fetch(`${gatewayUrl}/api/v1/api-keys`, {
    headers: { authorization: `Bearer ${merchant.accessToken}` },
  });
  const keys = (await res.json()) as { project_id: string }[] | { data: { project_id: string }[] };
  const list = Array.isArray(keys) ? keys : keys.data;
  if (!res.ok || list.length === 0) throw new Error(`GET /api/v1/api-keys answered ${res.status}`);
  return { projectId: list[0].project_id, testKey: merchant.testKey };
}

/** The routes of the same three queries, as a merchant calls them; each answer checked 200. */
const routes = (gatewayUrl: string, project: RouteProject, months: string[]) => {
  const get = (path: string) => async () => {
    const res = await fetch(`${gatewayUrl}/api/v1/analytics/${path}`, { headers: { 'x-api-key': project.testKey } });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`GET /analytics/${path} answered ${res.status}: ${body}`);
    return body;
  };
  return {
    'GET /analytics/mrr': get(`mrr?currency=${CURRENCY}&from=${months[0]}&to=${months[11]}`),
    'GET /analytics/revenue': get(`revenue?currency=${CURRENCY}&from=${months[0]}&to=${months[11]}`),
    'GET /analytics/summary': get(`summary?currency=${CURRENCY}`),
  };
};

/** Every answer of a project without as_of (which moves with the clock). */
async function figuresOf(analytics: Analytics, projectId: string, months: string[]): Promise<string> {
  const q = queries(analytics, projectId, months);
  const [mrr, revenue, summary] = await Promise.all([q.GetMrrSeries(), q.GetRevenueSeries(), q.GetSummary()]);
  return JSON.stringify([mrr.months, revenue.months, { ...summary, asOf: undefined }]);
}

async function latencies(call: () => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < WARMUP_CALLS; i += 1) await call();
  const times: number[] = [];
  for (let i = 0; i < CALLS; i += 1) {
    const started = process.hrtime.bigint();
    await call();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

async function main(): Promise<number> {
  process.stdout.write(
    `analytics benchmark: GET /analytics/mrr and /revenue (12 months) and /summary through the gateway, and ` +
      `GetMrrSeries, GetRevenueSeries, GetSummary over gRPC, ` +
      `${LARGE} vs ${SMALL} subscriptions with a year of history, ${CALLS} calls each after ${WARMUP_CALLS}\n`,
  );
  const platform: PlatformUnderTest = await startPlatform({ env: RELAXED_LIMITS });
  const gatewayUrl = platform.gatewayUrl;
  const db = new Client({ connectionString: databaseUrl(platform.env.DATABASE_URL, platform.database('analytics')) });
  await db.connect();
  const analytics = await platformClient(platform, 'analytics', analyticsV1.AnalyticsServiceClient);
  try {
    const months = lastTwelveMonths(new Date());
    const [sampleSql, sampleEvents] = [randomUUID(), randomUUID()];
    // The measured projects are two merchants' test-mode projects, so the routes reach them with their keys.
    const smallProject = await routeProject(gatewayUrl, 'analytics-small');
    const largeProject = await routeProject(gatewayUrl, 'analytics-large');
    const [small, large] = [smallProject.projectId, largeProject.projectId];

    // The apply path and the SQL seed agree: the same SAMPLE histories, as events through the
    // consumer and as SQL, give the same answers.
    await seedProject(db, sampleSql, SAMPLE, months);
    const events = await platformEvents(platform);
    for (const envelope of historyEvents(sampleEvents, SAMPLE, months)) await events.publish(envelope);
    await events.close();
    const expected = await figuresOf(analytics, sampleSql, months);
    const deadline = Date.now() + 120_000;
    let applied = await figuresOf(analytics, sampleEvents, months);
    while (applied !== expected && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      applied = await figuresOf(analytics, sampleEvents, months);
    }
    if (applied !== expected) throw new Error(`the apply path gives ${applied}, the SQL seed ${expected}`);
    process.stdout.write(`apply path = SQL seed on ${SAMPLE} subscriptions: same MRR series, revenue and summary\n`);

    let started = Date.now();
    await seedProject(db, small, SMALL, months, false);
    await seedProject(db, large, LARGE, months, false);
    await db.query('ANALYZE');
    const [count] = (await db.query<{ n: string }>('SELECT count(*) AS n FROM subscription_states')).rows;
    process.stdout.write(
      `seeded ${SMALL} and ${LARGE} subscriptions (${count.n} in the read model) in ${round((Date.now() - started) / 1000, 1)} s\n`,
    );

    started = Date.now();
    const rows: string[][] = [
      [
        'query',
        `p50 ms (${SMALL})`,
        `p99 ms (${SMALL})`,
        `p50 ms (${LARGE})`,
        `p99 ms (${LARGE})`,
        'ratio p50',
        'ratio p99',
      ],
    ];
    const results: Record<string, unknown> = {};
    let worstP99 = 0;
    let worstRatio = 0;
    const smallCalls = {
      ...routes(gatewayUrl, smallProject, months),
      ...queries(analytics, small, months, false),
    };
    const largeCalls = {
      ...routes(gatewayUrl, largeProject, months),
      ...queries(analytics, large, months, false),
    };
    for (const name of Object.keys(smallCalls) as (keyof typeof smallCalls)[]) {
      // Alternating sizes, so both see the same machine state.
      const baseline = await latencies(smallCalls[name]);
      const measured = await latencies(largeCalls[name]);
      const ratioP50 = measured.p50 / baseline.p50;
      const ratioP99 = measured.p99 / baseline.p99;
      worstP99 = Math.max(worstP99, measured.p99);
      worstRatio = Math.max(worstRatio, ratioP99);
      rows.push([
        name,
        round(baseline.p50).toString(),
        round(baseline.p99).toString(),
        round(measured.p50).toString(),
        round(measured.p99).toString(),
        round(ratioP50).toString(),
        round(ratioP99).toString(),
      ]);
      results[name] = {
        small: { p50_ms: round(baseline.p50, 3), p99_ms: round(baseline.p99, 3) },
        large: { p50_ms: round(measured.p50, 3), p99_ms: round(measured.p99, 3) },
        ratio_p50: round(ratioP50, 3),
        ratio_p99: round(ratioP99, 3),
      };
    }
    process.stdout.write(
      `\n${table(rows)}\nworst p99 at ${LARGE}: ${round(worstP99)} ms (goal < 100), worst ratio p99 ${LARGE}/${SMALL}: ` +
        `${round(worstRatio)} (goal <= 2)\n\n`,
    );
    process.stdout.write(
      `${JSON.stringify({
        bench: 'analytics',
        subscriptions: { large: LARGE, small: SMALL },
        calls: CALLS,
        node: process.version,
        ...results,
        worst_p99_ms: round(worstP99, 3),
        worst_ratio_p99: round(worstRatio, 3),
        measured_s: round((Date.now() - started) / 1000, 1),
      })}\n`,
    );
    return 0;
  } finally {
    analytics.close();
    await db.end();
    await platform.stop();
  }
}

runBenchmark('analytics', main);
