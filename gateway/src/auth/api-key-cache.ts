import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { identityV1 } from '@billing/proto';

export type ApiKeyPrincipal = identityV1.VerifyApiKeyResponse;

/**
 * Successful API-key verifications, kept for a short TTL so that hot keys do not cost a gRPC
 * round trip per request. Keyed by the SHA-256 of the key: a heap dump never shows raw keys.
 * Failures are never cached, so a re-enabled key works at once.
 *
 * When this replica revokes or disables a key, or deactivates a merchant, it evicts the entries
 * at once; other replicas evict on identity's events (key-revocation-listener.ts). The TTL
 * (API_KEY_CACHE_TTL_MS, 5 s by default) bounds the staleness if an event is ever missed.
 */
export class ApiKeyCache {
  private readonly entries: LRUCache<string, ApiKeyPrincipal> | undefined;
  private readonly inflight = new Map<string, Promise<ApiKeyPrincipal>>();
  /** Bumped by every eviction, so that a verification that started before it is not stored after it. */
  private generation = 0;

  constructor(ttlMs: number, maxEntries = 10_000) {
    this.entries = ttlMs > 0 ? new LRUCache({ max: maxEntries, ttl: ttlMs }) : undefined;
  }

  /** The cached principal of `key`, or the result of `verify` (concurrent misses share one call). */
  async verify(key: string, verify: () => Promise<ApiKeyPrincipal>): Promise<ApiKeyPrincipal> {
    if (!this.entries) return verify();
    const fingerprint = createHash('sha256').update(key, 'utf8').digest('hex');
    const cached = this.entries.get(fingerprint);
    if (cached) return cached;
    const pending = this.inflight.get(fingerprint);
    if (pending) return pending;
    const generation = this.generation;
    const loading = verify()
      .then((principal) => {
        if (generation === this.generation) this.entries?.set(fingerprint, principal);
        return principal;
      })
      .finally(() => this.inflight.delete(fingerprint));
    this.inflight.set(fingerprint, loading);
    return loading;
  }

  evictKey(keyId: string): void {
    this.evictWhere((principal) => principal.keyId === keyId);
  }

  evictMerchant(merchantId: string): void {
    this.evictWhere((principal) => principal.merchantId === merchantId);
  }

  private evictWhere(matches: (principal: ApiKeyPrincipal) => boolean): void {
    this.generation++;
    // In-flight verifications may have read the old state; let the next request ask again.
    this.inflight.clear();
    if (!this.entries) return;
    const doomed: string[] = [];
    this.entries.forEach((principal, fingerprint) => {
      if (matches(principal)) doomed.push(fingerprint);
    });
    for (const fingerprint of doomed) this.entries.delete(fingerprint);
  }
}
