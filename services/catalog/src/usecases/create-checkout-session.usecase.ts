import { randomUUID } from 'node:crypto';
import { DomainError, type ProjectScope } from '@billing/platform';
import { generateCheckoutCode, validateCheckoutDraft, type CheckoutDraft } from '../domain/checkout-session';
import type { CheckoutSessionModel } from '../db/models/checkout-session.model';
import type { CatalogDeps } from './catalog-deps';

export async function createCheckoutSession(
  deps: CatalogDeps,
  scope: ProjectScope,
  planId: string,
  draft: CheckoutDraft,
): Promise<CheckoutSessionModel> {
  const plan = await deps.plans.get(scope, planId);
  if (!plan.isActive) throw new DomainError('failed_precondition', 'The plan is not active');
  const minutes = validateCheckoutDraft(draft);
  const now = await deps.clocks.now(scope);
  return deps.checkoutSessions.create({
    id: randomUUID(),
    projectId: scope.projectId,
    merchantId: scope.merchantId,
    livemode: scope.livemode,
    code: generateCheckoutCode(),
    planId: plan.id,
    successUrl: draft.successUrl ?? null,
    cancelUrl: draft.cancelUrl ?? null,
    customerEmail: draft.customerEmail ?? null,
    customerName: draft.customerName ?? null,
    metadata: draft.metadata ?? {},
    expiresAt: new Date(now.getTime() + minutes * 60_000),
    createdAt: now,
  });
}
