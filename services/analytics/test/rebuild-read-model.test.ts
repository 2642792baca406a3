import { randomUUID } from 'node:crypto';
import type { AnalyticsFact } from '@billing/analytics';
import { createLogger, ProjectClocks, systemClock, type EventEnvelope } from '@billing/platform';
import type { billingV1 } from '@billing/proto';
import { openEventTestbed, queryDatabase, type EventTestbed } from '@billing/testing';
import type { AnalyticsDeps, RebuildDeps } from '../src/analytics-deps';
import { analyticsMigrations } from '../src/db/migrations';
import { ReadModelRepository } from '../src/db/repositories/read-model.repository';
import { applyAnalyticsEvents } from '../src/usecases/events/apply-analytics-events.usecase';
import { getMrrSeries } from '../src/usecases/mrr/get-mrr-series.usecase';
import { getRevenueSeries } from '../src/usecases/revenue/get-revenue-series.usecase';
import { getSummary } from '../src/usecases/summary/get-summary.usecase';
import { rebuildReadModel } from '../src/usecases/rebuild/rebuild-read-model.usecase';

/**
 * The rebuild (docs/api-behaviour.md §25) on a real PostgreSQL database, with billing's
 * ListAnalyticsEvents played by a double serving a recorded history: it pages by after_seq,
 * gives the figures the consumer gave, and a consumer transaction waits for it instead of
 * interleaving.
 */
describe("rebuilding the read model from billing's history", () => {
  let testbed: EventTestbed;
  let deps: AnalyticsDeps;
  const projectId = randomUUID();
  const scope = { projectId, merchantId: randomUUID(), livemode: true };
  const history: EventEnvelope[] = [];

  const envelope = (createdAt: string, analytics: AnalyticsFact): EventEnvelope => ({
    id: randomUUID(),
    event: analytics.kind === 'subscription_mrr' ? 'subscription.updated' : 'invoice.paid',
    data: {},
    created_at: createdAt,
    project_id: projectId,
    livemode: true,
    analytics,
  });
  const active = (i: number, mrr: number): AnalyticsFact => ({
    kind: 'subscription_mrr',
    subscription_id: `sub_${i}`,
    customer_id: `cus_${i % 3}`,
    currency: 'NGN',
    status: mrr > 0 ? 'ACTIVE' : 'CANCELLED',
    contributing: mrr > 0,
    mrr,
  });

  /** billing.v1 ListAnalyticsEvents over `history`, seq = place + 1; `gate` holds a page back. */
  function billingDouble(gate?: { page: number; open: Promise<void> }) {
    const calls: { afterSeq: number; limit: number }[] = [];
    return {
      calls,
      billing: {
        async listAnalyticsEvents(req: billingV1.ListAnalyticsEventsRequest) {
          calls.push({ afterSeq: req.afterSeq, limit: req.limit });
          if (gate && calls.length === gate.page) await gate.open;
          const events = history
            .map((e, i) => ({ seq: i + 1, envelopeJson: JSON.stringify(e) }))
            .filter((r) => r.seq > req.afterSeq)
            .slice(0, req.limit);
          return { events };
        },
      },
    };
  }

  const figures = async () => {
    const range = { currency: 'NGN', from: '2026-01', to: '2026-06' };
    return {
      mrr: (await getMrrSeries(deps, scope, range)).months,
      revenue: (await getRevenueSeries(deps, scope, range)).months,
      summary: (await getSummary(deps, scope, { currency: 'NGN' })).summary,
    };
  };
  const processedCount = async () =>
    Number(
      (await queryDatabase<{ n: string }>(`${testbed.runId}_db`, 'SELECT count(*) AS n FROM processed_events'))[0].n,
    );

  beforeAll(async () => {
    testbed = await openEventTestbed('analyticsrebuild', analyticsMigrations);
    deps = {
      readModel: new ReadModelRepository(testbed.sequelize),
      clocks: new ProjectClocks(testbed.sequelize, systemClock),
      clock: systemClock,
      logger: createLogger('analytics-rebuild-test', 'silent'),
    };
    for (let i = 0; i < 9; i += 1) {
      const month = String(1 + (i % 4)).padStart(2, '0');
      history.push(envelope(`2026-${month}-05T10:00:00.000Z`, active(i, 1_000 * (i + 1))));
      history.push(
        envelope(`2026-${month}-05T10:00:00.000Z`, {
          kind: 'invoice_payment',
          invoice_id: `in_${i}`,
          customer_id: `cus_${i % 3}`,
          currency: 'NGN',
          charged: 1_000 * (i + 1),
          tax: 0,
        }),
      );
      if (i % 3 === 0) history.push(envelope(`2026-05-0${1 + (i % 5)}T10:00:00.000Z`, active(i, i === 0 ? 0 : 5_000)));
    }
    // The live consumer's view: the same events in batches of four.
    for (let i = 0; i < history.length; i += 4) await applyAnalyticsEvents(deps, history.slice(i, i + 4));
  });

  afterAll(() => testbed?.close());

  it('pages by after_seq and gives the live figures again', async () => {
    const live = await figures();
    expect(live.summary).toMatchObject({ activeSubscriptions: 8 });
    const processedLive = await processedCount();
    const { billing, calls } = billingDouble();
    const counts = await rebuildReadModel({ ...deps, billing } as RebuildDeps, 10);
    expect(counts).toEqual({ events: history.length, applied: history.length, pages: 3 });
    expect(calls).toEqual([
      { afterSeq: 0, limit: 10 },
      { afterSeq: 10, limit: 10 },
      { afterSeq: 20, limit: 10 },
      { afterSeq: history.length, limit: 10 },
    ]);
    expect(await figures()).toEqual(live);
    expect(await processedCount()).toBe(processedLive);
  });

  it('a consumer transaction waits for the rebuild, then applies its event once', async () => {
    let open!: () => void;
    const gate = { page: 2, open: new Promise<void>((resolve) => (open = resolve)) };
    const { billing } = billingDouble(gate);
    const rebuilding = rebuildReadModel({ ...deps, billing } as RebuildDeps, 10);
    // The rebuild holds its lock and is waiting for its second page: a new event waits too.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const late = envelope('2026-06-10T10:00:00.000Z', active(20, 7_000));
    let consumed = false;
    const consuming = applyAnalyticsEvents(deps, [late]).then((result) => {
      consumed = true;
      return result;
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(consumed).toBe(false);
    open();
    await rebuilding;
    expect(await consuming).toEqual({ applied: 1, seenBefore: 0, withoutFacts: 0 });
    expect((await figures()).summary).toMatchObject({ activeSubscriptions: 9 });
    // Delivered again: nothing changes.
    expect(await applyAnalyticsEvents(deps, [late])).toEqual({ applied: 0, seenBefore: 1, withoutFacts: 0 });
    expect((await figures()).summary).toMatchObject({ activeSubscriptions: 9 });
  });
});
