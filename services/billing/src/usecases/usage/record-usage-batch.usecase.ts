import { DomainError, isUuid, type ProjectScope } from '@billing/platform';
import type { NewUsageRecord } from '../../db/repositories/usage-record.repository';
import { parseUsageQuantity, usageAmountProblem } from '../../domain/usage-quantity';
import type { BillingDeps } from '../../billing-deps';
import { textFieldProblem, usageRefusal } from '../../domain/usage-rules';

export const MAX_BATCH_RECORDS = 1000;

export interface BatchUsageItem {
  subscriptionId: string;
  quantity: string;
  idempotencyKey?: string;
  timestamp?: Date;
  description?: string;
}

export interface BatchUsageResult {
  accepted: number;
  duplicates: number;
  errors: { index: number; detail: string }[];
}

/**
 * The high-volume path (docs/api-behaviour.md §9): every record obeys RecordUsage's rules, a bad record
 * is reported by index without failing the others. Fast: the distinct subscriptions are read in
 * one query and the valid records go in one INSERT ... ON CONFLICT DO NOTHING.
 */
export async function recordUsageBatch(
  deps: BillingDeps,
  scope: ProjectScope,
  items: BatchUsageItem[],
): Promise<BatchUsageResult> {
  if (items.length > MAX_BATCH_RECORDS) {
    throw new DomainError('invalid_argument', `A batch holds at most ${MAX_BATCH_RECORDS} records`);
  }
  const ids = [...new Set(items.map((item) => item.subscriptionId).filter(isUuid))];
  const byId = await deps.subscriptions.usageTargets(ids);

  const errors: BatchUsageResult['errors'] = [];
  const valid: NewUsageRecord[] = [];
  const now = await deps.clocks.now(scope);
  items.forEach((item, index) => {
    const subscription = byId.get(item.subscriptionId);
    const fail = (detail: string) => errors.push({ index, detail });
    if (!subscription || (subscription.projectId === scope.projectId && subscription.livemode !== scope.livemode)) {
      return fail('Subscription not found');
    }
    if (subscription.projectId !== scope.projectId) return fail('Subscription belongs to another project');
    const quantity = parseUsageQuantity(item.quantity);
    if (!quantity.ok) return fail(`quantity: ${quantity.reason}`);
    const idempotencyKey = item.idempotencyKey || null;
    const description = item.description ?? null;
    const problem = textFieldProblem({ description, idempotencyKey });
    if (problem) return fail(problem);
    const refusal = usageRefusal(subscription);
    if (refusal) return fail(refusal);
    const tooLarge = usageAmountProblem(quantity.value, subscription.usageUnitAmount ?? null);
    if (tooLarge) return fail(`quantity: ${tooLarge}`);
    valid.push({
      subscriptionId: subscription.id,
      quantity: quantity.value,
      description,
      idempotencyKey,
      timestamp: item.timestamp ?? now,
    });
  });

  // One order for every batch, so concurrent batches sharing keys cannot deadlock on the index.
  valid.sort((a, b) =>
    a.subscriptionId === b.subscriptionId
      ? (a.idempotencyKey ?? '').localeCompare(b.idempotencyKey ?? '')
      : a.subscriptionId < b.subscriptionId
        ? -1
        : 1,
  );
  const { accepted, duplicates } = await deps.usage.insertMany(scope, valid, now);
  // A parked renewal (§9) is tried again once the usage changes; others cost no statement.
  const parked = new Set(valid.map((record) => record.subscriptionId).filter((id) => byId.get(id)?.parked));
  if (accepted > 0) await deps.subscriptions.unparkBilling([...parked]);
  return { accepted, duplicates, errors };
}
