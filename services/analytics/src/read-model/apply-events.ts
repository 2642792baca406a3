import type { EventEnvelope } from '@billing/platform';
import type { AnalyticsDeps } from '../analytics-deps';
import { foldFacts, type ScopedFact } from '../domain/read-model-changes';
import { scopedFactsOf } from '../events/analytics-facts';

export interface AppliedEvents {
  /** Events whose facts changed the read model now. */
  applied: number;
  /** Events processed before (a redelivery, or one the rebuild applied): nothing changed. */
  seenBefore: number;
  /** Events without analytics facts: nothing to do. */
  withoutFacts: number;
}

/**
 * The one apply path of the read model (docs/api-behaviour.md §25), for the consumer and the
 * rebuild alike, exactly once: in one transaction the events' ids are recorded as processed and
 * the facts of those not recorded before change the read model, so a redelivered event changes
 * nothing and a crash before the commit loses nothing (the event comes again). Facts apply in
 * the order given (the stream's, or billing's commit order). `shareRebuildLock`: the consumer's
 * transactions take the rebuild lock shared, so none runs while a rebuild holds it, and lock the
 * subscriptions they change; the rebuild, which holds it exclusively, needs neither.
 */
export async function applyEvents(
  deps: AnalyticsDeps,
  envelopes: EventEnvelope[],
  options: { shareRebuildLock: boolean },
): Promise<AppliedEvents> {
  const facts = new Map<string, ScopedFact[]>();
  for (const envelope of envelopes) {
    // One event twice in a batch (a replay next to its original) is still one event.
    if (facts.has(envelope.id)) continue;
    const scoped = scopedFactsOf(envelope);
    if (scoped.length > 0) facts.set(envelope.id, scoped);
  }
  const withoutFacts = envelopes.filter((envelope) => !facts.has(envelope.id)).length;
  if (facts.size === 0) return { applied: 0, seenBefore: 0, withoutFacts };
  return deps.readModel.transaction(async (transaction) => {
    if (options.shareRebuildLock) await deps.readModel.shareReadModelLock(transaction);
    const fresh = await deps.readModel.claimEvents([...facts.keys()], deps.clock.now(), transaction);
    const toApply = [...facts.values()].flat().filter((fact) => fresh.has(fact.eventId));
    const subscriptions = toApply.flatMap(({ projectId, livemode, fact }) =>
      fact.kind === 'subscription_mrr' ? [{ projectId, livemode, subscriptionId: fact.subscription_id }] : [],
    );
    const known = await deps.readModel.lockSubscriptions(subscriptions, transaction, options.shareRebuildLock);
    await deps.readModel.writeChanges(foldFacts(toApply, known), transaction);
    return { applied: fresh.size, seenBefore: facts.size - fresh.size, withoutFacts };
  });
}
