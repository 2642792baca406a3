import { LRUCache } from 'lru-cache';
import { counter } from '@billing/platform';
import type { toPlan } from '../routes/v1/plans/plans.schemas';

/** What GET /api/v1/plans/{id} answers. */
export type PlanAnswer = ReturnType<typeof toPlan>;

const reads = counter(
  'gateway_plan_cache_reads_total',
  'GET /api/v1/plans/{id} by how the plan cache answered: hit, miss (asked catalog), or bypass (cache off: NATS down or TTL 0)',
  ['outcome'],
);
// Bound once: the hit path is the hot one.
const hits = reads.labels({ outcome: 'hit' });
const misses = reads.labels({ outcome: 'miss' });
const bypasses = reads.labels({ outcome: 'bypass' });

/** Whose plan a cached read is: the tenant half of the key (docs/decisions.md, "Plan reads cached in the gateway"). */
export interface PlanCacheScope {
  projectId: string;
  livemode: boolean;
}

/**
 * `GET /api/v1/plans/{id}` answers kept in this replica, keyed by (project, mode, plan id): a key
 * of project X can only ever reach entries stored under X, so it never gets project Y's plan
 * (a plan of another project misses and catalog answers 403/404, which is never stored).
 *
 * Only as fresh as its invalidations (docs/decisions.md): catalog announces every plan change
 * on NATS before it answers the write, and plan-change-listener.ts drops the entry here; a read
 * waits for a NATS round trip started after it arrived, so that every announcement made before
 * it has been applied (natsRoundTrips in @billing/platform). While
 * this replica's NATS connection is down, and until a reconnect is confirmed, nothing is read
 * from or stored in the cache (it may miss messages then), and the whole cache is cleared. The
 * TTL (PLAN_CACHE_TTL_MS) bounds what a missed message could cost.
 */
export class PlanReadCache {
  private readonly entries: LRUCache<string, PlanAnswer> | undefined;
  private readonly inflight = new Map<string, { generation: number; loading: Promise<PlanAnswer> }>();
  /**
   * Bumped by every invalidation, clear and suspension: a read that started before one may
   * have seen the old plan, so it is answered but not stored.
   */
  private generation = 0;
  /** False until the NATS subscription is confirmed, and whenever the connection is down. */
  private trusted = false;
  /**
   * A NATS round trip started after the read arrived (natsRoundTrips): once it is answered,
   * every announcement catalog had made before has been applied here, so a hit is current.
   */
  private roundTrip: (() => Promise<void>) | undefined;

  constructor(ttlMs: number, maxEntries = 10_000) {
    this.entries = ttlMs > 0 ? new LRUCache({ max: maxEntries, ttl: ttlMs }) : undefined;
  }

  /** Hits wait for `roundTrip` first (see the field); without one, as in unit tests, they do not. */
  synchronizeWith(roundTrip: () => Promise<void>): void {
    this.roundTrip = roundTrip;
  }

  /** The cached answer for the plan, or `load`'s (concurrent misses of one key share one call). */
  async read(scope: PlanCacheScope, planId: string, load: () => Promise<PlanAnswer>): Promise<PlanAnswer> {
    if (!this.entries || !this.trusted || (this.roundTrip && !(await this.synchronized(this.roundTrip)))) {
      bypasses.inc();
      return load();
    }
    const key = cacheKey(scope, planId);
    const cached = this.entries.get(key);
    if (cached) {
      hits.inc();
      return cached;
    }
    misses.inc();
    const generation = this.generation;
    const pending = this.inflight.get(key);
    if (pending && pending.generation === generation) return pending.loading;
    const loading = load()
      .then((answer) => {
        if (generation === this.generation && this.trusted) this.entries?.set(key, answer);
        return answer;
      })
      .finally(() => {
        if (this.inflight.get(key)?.loading === loading) this.inflight.delete(key);
      });
    this.inflight.set(key, { generation, loading });
    return loading;
  }

  /** Whether the cache may be used for a read arriving now: trusted still after the round trip. */
  private async synchronized(roundTrip: () => Promise<void>): Promise<boolean> {
    try {
      await roundTrip();
    } catch {
      // NATS did not answer in time: this read cannot know what it missed; catalog answers it.
      return false;
    }
    return this.trusted;
  }

  /** A plan changed: the next read of it, here, asks catalog. */
  invalidate(scope: PlanCacheScope, planId: string): void {
    this.generation++;
    this.entries?.delete(cacheKey(scope, planId));
  }

  /** Forget everything (an invalidation we could not read names no entry). */
  clear(): void {
    this.generation++;
    this.entries?.clear();
  }

  /** The NATS connection dropped: messages may be missed from now on. */
  suspend(): void {
    this.trusted = false;
    this.clear();
  }

  /** The subscription is confirmed (again): what was cached before may be stale, so start empty. */
  resume(): void {
    this.clear();
    this.trusted = true;
  }

  /** For metrics and tests: entries held now. */
  get size(): number {
    return this.entries?.size ?? 0;
  }
}

const cacheKey = (scope: PlanCacheScope, planId: string) =>
  `${scope.projectId}:${scope.livemode ? 'live' : 'test'}:${planId}`;
