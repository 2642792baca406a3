import { randomUUID } from 'node:crypto';
import type { ProjectScope } from '@billing/platform';
import { validateNewCoupon, type CouponDraft } from '../../domain/coupon-rules';
import type { CouponModel } from '../../db/models/coupon.model';
import type { CatalogDeps } from '../../catalog-deps';

/**
 * `POST /coupons` (docs/api-behaviour.md §19): every rule at once (422), then each plan of
 * plan_ids must be a plan of this project and mode (404, another project's 403), then the code
 * must be new in the project and mode (409, compared upper case).
 */
export async function createCoupon(deps: CatalogDeps, scope: ProjectScope, draft: CouponDraft): Promise<CouponModel> {
  const now = await deps.clocks.now(scope);
  const coupon = validateNewCoupon(draft, now);
  for (const planId of coupon.planIds) await deps.plans.get(scope, planId);
  return deps.coupons.create({
    id: randomUUID(),
    projectId: scope.projectId,
    livemode: scope.livemode,
    ...coupon,
    createdAt: now,
    updatedAt: now,
  });
}
