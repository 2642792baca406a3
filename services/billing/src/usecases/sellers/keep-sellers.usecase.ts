import { latestSellerPerProject, type ProjectSeller } from '../../domain/invoice-parties';
import type { BillingDeps } from '../../billing-deps';

/**
 * Keeps billing's copy of each project's seller from what merchant.seller_details_updated
 * announced (docs/events-and-test-mode.md, "Internal events"): per project, the seller with the
 * latest `updated_at` of the batch, stored unless the copy kept is as recent. A redelivery, a
 * replay or an event older than the copy therefore changes nothing, so the consumer may ack
 * after this returns and deliver a batch again. Returns how many copies changed.
 */
export function keepSellers(deps: BillingDeps, announced: ProjectSeller[]): Promise<number> {
  return deps.invoiceParties.keepSellers(latestSellerPerProject(announced), deps.clock.now());
}
