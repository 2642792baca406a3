import { DomainError, type ProjectScope } from '@billing/platform';
import type { UsageRecordModel } from '../../db/models';
import { parseUsageQuantity, usageAmountProblem } from '../../domain/usage-quantity';
import type { BillingDeps } from '../../billing-deps';
import { refused, textFieldProblem, usageRefusal } from '../../domain/usage-rules';

export interface RecordUsageCommand {
  subscriptionId: string;
  /** Decimal text as the client sent it. */
  quantity: string;
  description?: string;
  idempotencyKey?: string;
  timestamp?: Date;
}

/**
 * Records one usage record (docs/api-behaviour.md §9). The same idempotency key on the same
 * subscription returns the first record (created=false): the INSERT skips on the unique index and
 * the stored record is read back, so concurrent repeats also end with one record.
 */
export async function recordUsage(
  deps: BillingDeps,
  scope: ProjectScope,
  command: RecordUsageCommand,
): Promise<{ record: UsageRecordModel; created: boolean }> {
  const quantity = parseUsageQuantity(command.quantity);
  if (!quantity.ok) {
    throw DomainError.invalid([{ loc: ['quantity'], msg: quantity.reason, type: 'decimal_parsing' }]);
  }
  const idempotencyKey = command.idempotencyKey || null;
  const description = command.description ?? null;
  const problem = textFieldProblem({ description, idempotencyKey });
  if (problem) throw new DomainError('invalid_argument', problem);

  const subscription = await deps.subscriptions.get(scope, command.subscriptionId);
  const refusal = usageRefusal(subscription);
  if (refusal) throw refused(refusal);
  const tooLarge = usageAmountProblem(quantity.value, subscription.usageUnitAmount ?? null);
  if (tooLarge) throw DomainError.invalid([{ loc: ['body', 'quantity'], msg: tooLarge, type: 'value_error' }]);

  const now = await deps.clocks.now(scope);
  const inserted = await deps.usage.insertOne(
    scope,
    {
      subscriptionId: subscription.id,
      quantity: quantity.value,
      description,
      idempotencyKey,
      timestamp: command.timestamp ?? now,
    },
    now,
  );
  if (inserted) {
    // A parked renewal (§9) is tried again once the usage changes; others cost no statement.
    if (subscription.billingParkedAt) await deps.subscriptions.unparkBilling([subscription.id]);
    return { record: inserted, created: true };
  }

  const first = idempotencyKey ? await deps.usage.findByIdempotencyKey(subscription.id, idempotencyKey) : null;
  if (!first) throw new DomainError('unavailable', 'usage record was neither stored nor found; retry');
  return { record: first, created: false };
}
