import type { EventEnvelope } from '@billing/platform';
import type { RebuildDeps } from '../../analytics-deps';
import { applyEvents } from '../../read-model/apply-events';

/** Billing's ListAnalyticsEvents page size the rebuild asks for. */
export const REBUILD_PAGE_SIZE = 1000;

export interface RebuildCounts {
  /** Events billing listed. */
  events: number;
  /** Of which applied (the others carried no facts). */
  applied: number;
  pages: number;
}

/**
 * `npm run analytics:rebuild` (docs/api-behaviour.md §25, docs/deployment.md): empties the read
 * model and the processed ids, then applies every event of billing's history (ListAnalyticsEvents,
 * commit order, after_seq paging) through the consumer's apply path, a page per transaction. The
 * rebuild lock is held exclusively the whole time, so the live consumer waits and then carries on:
 * the events it is handed again are already processed.
 */
export async function rebuildReadModel(deps: RebuildDeps, pageSize = REBUILD_PAGE_SIZE): Promise<RebuildCounts> {
  const release = await deps.readModel.holdExclusiveLock();
  try {
    await deps.readModel.empty();
    const counts: RebuildCounts = { events: 0, applied: 0, pages: 0 };
    let afterSeq = 0;
    for (;;) {
      const { events } = await deps.billing.listAnalyticsEvents({ afterSeq, limit: pageSize });
      if (events.length === 0) break;
      const envelopes = events.map((record) => JSON.parse(record.envelopeJson) as EventEnvelope);
      const applied = await applyEvents(deps, envelopes, { shareRebuildLock: false });
      counts.events += events.length;
      counts.applied += applied.applied;
      counts.pages += 1;
      afterSeq = Number(events[events.length - 1].seq);
      deps.logger.info({ after_seq: afterSeq, events: counts.events }, 'analytics rebuild: page applied');
    }
    return counts;
  } finally {
    await release();
  }
}
