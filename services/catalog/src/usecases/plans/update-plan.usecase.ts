import { DomainError, type FieldViolation, type ProjectScope } from '@billing/platform';
import { checkMetadata, refuseImmutableChanges } from '../../domain/plan-rules';
import type { PlanModel } from '../../db/models/plan.model';
import type { CatalogDeps } from '../../catalog-deps';
import { attachableTaxRateIds } from '../../tax-rates/attachable-tax-rates';

export interface PlanChanges {
  name?: string;
  description?: string;
  isActive?: boolean;
  metadata?: Record<string, unknown>;
  /** Replaces the default tax rates (docs/api-behaviour.md §21); undefined: unchanged. */
  taxRateIds?: string[];
  /** Every other field the client sent; price fields among them are refused. */
  otherFields: string[];
}

export async function updatePlan(
  deps: CatalogDeps,
  scope: ProjectScope,
  planId: string,
  changes: PlanChanges,
): Promise<PlanModel> {
  const plan = await deps.plans.get(scope, planId);
  refuseImmutableChanges(changes.otherFields);
  const violations: FieldViolation[] = [];
  if (changes.name !== undefined && (changes.name.trim().length < 1 || changes.name.length > 200)) {
    violations.push({
      loc: ['body', 'name'],
      msg: 'String should have 1 to 200 characters',
      type: 'value_error',
      input: changes.name,
    });
  }
  checkMetadata(changes.metadata, violations);
  if (violations.length) throw DomainError.invalid(violations);
  // A rate the plan has may stay though deactivated since: where a rate is attached it keeps
  // applying (§21). Subscriptions already made keep the rates they were made with.
  const taxRateIds =
    changes.taxRateIds && (await attachableTaxRateIds(deps, scope, changes.taxRateIds, plan.taxRateIds));
  const updated = await deps.plans.save(plan, {
    ...(changes.name !== undefined && { name: changes.name.trim() }),
    ...(changes.description !== undefined && { description: changes.description }),
    ...(changes.isActive !== undefined && { isActive: changes.isActive }),
    ...(changes.metadata !== undefined && { metadata: changes.metadata }),
    ...(taxRateIds && { taxRateIds }),
    updatedAt: await deps.clocks.now(scope),
  });
  // After the commit, before the answer: the gateways' cached reads of it go (docs/decisions.md).
  await deps.planChanges.announce(scope, planId);
  return updated;
}
