import { requireScope, type UnaryHandlers } from '@billing/platform';
import type { billingV1 } from '@billing/proto';
import type { UsageRecordModel } from '../db/models';
import { canonicalQuantity } from '../domain/usage-quantity';
import type { BillingDeps } from '../billing-deps';
import { getUsageSummary } from '../usecases/usage/get-usage-summary.usecase';
import { listUsage } from '../usecases/usage/list-usage.usecase';
import { recordUsageBatch } from '../usecases/usage/record-usage-batch.usecase';
import { recordUsage } from '../usecases/usage/record-usage.usecase';

type BillingHandlers = UnaryHandlers<billingV1.BillingServiceServer>;

export const toUsageRecord = (r: UsageRecordModel): billingV1.UsageRecord => ({
  id: r.id,
  subscriptionId: r.subscriptionId,
  quantity: canonicalQuantity(String(r.quantity)),
  description: r.description ?? undefined,
  idempotencyKey: r.idempotencyKey ?? undefined,
  billed: r.billed,
  billedAt: r.billedAt ?? undefined,
  invoiceId: r.invoiceId ?? undefined,
  timestamp: r.timestamp,
  livemode: r.livemode,
  createdAt: r.createdAt,
});

/** Metered usage (docs/api-behaviour.md §9). Thin: proto request -> use case -> proto response. */
export function usageHandlers(deps: BillingDeps): Partial<BillingHandlers> {
  return {
    async recordUsage(req) {
      const { record, created } = await recordUsage(deps, requireScope(req.scope), {
        subscriptionId: req.subscriptionId,
        quantity: req.quantity,
        description: req.description,
        idempotencyKey: req.idempotencyKey,
        timestamp: req.timestamp,
      });
      return { record: toUsageRecord(record), created };
    },
    async recordUsageBatch(req) {
      return recordUsageBatch(
        deps,
        requireScope(req.scope),
        req.records.map((item) => ({
          subscriptionId: item.subscriptionId,
          quantity: item.quantity,
          idempotencyKey: item.idempotencyKey,
          timestamp: item.timestamp,
          description: item.description,
        })),
      );
    },
    async listUsage(req) {
      const records = await listUsage(
        deps,
        requireScope(req.scope),
        req.subscriptionId,
        { limit: req.page?.limit, startingAfter: req.page?.startingAfter || undefined },
        req.billed,
      );
      return { records: records.map(toUsageRecord) };
    },
    async getUsageSummary(req) {
      const summary = await getUsageSummary(deps, requireScope(req.scope), req.subscriptionId);
      return {
        periodStart: summary.periodStart,
        periodEnd: summary.periodEnd,
        unbilledQuantity: summary.unbilledQuantity,
        unitAmount: summary.unitAmount ?? undefined,
        estimatedAmount: summary.estimatedAmount,
        currency: summary.currency,
      };
    },
  };
}
