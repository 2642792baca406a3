import type { Transaction } from 'sequelize';
import { DomainError, isGrpcServiceError, readRemoteError, sellerOfMessage } from '@billing/platform';
import {
  latestSellerPerProject,
  type InvoiceBuyer,
  type InvoiceSeller,
  type ProjectSeller,
} from '../domain/invoice-parties';
import type { BillingDeps } from '../billing-deps';

/** The seller and the buyer a new invoice keeps (docs/api-behaviour.md §22). */
export interface NewInvoiceParties {
  seller: InvoiceSeller;
  buyer: InvoiceBuyer;
}

/**
 * The parties of new invoices of these customers, by customer id, as they are now: the buyer from
 * the customer, the seller from billing's copy of its project's (kept from identity's
 * merchant.seller_details_updated), in one query however many invoices (a batch of renewals
 * across projects). A project billing keeps no seller of yet (a merchant that existed before the
 * event, and has not changed since) is asked of identity, once: the answer is kept in the caller's
 * transaction like an event's, so the next invoice reads the copy. Identity unreachable fails the
 * invoices (UNAVAILABLE, retried), rather than create one without its seller.
 */
export async function invoicePartiesOf(
  deps: BillingDeps,
  customerIds: string[],
  transaction: Transaction,
): Promise<Map<string, NewInvoiceParties>> {
  const found = await deps.invoiceParties.partiesOf([...new Set(customerIds)], transaction);
  const unknown = [...new Set([...found.values()].filter((p) => !p.seller).map((p) => p.projectId))];
  const asked = await sellersFromIdentity(deps, unknown, transaction);
  const parties = new Map<string, NewInvoiceParties>();
  for (const customerId of customerIds) {
    const party = found.get(customerId);
    if (!party) throw new Error(`customer ${customerId} of a new invoice not found`);
    parties.set(customerId, { buyer: party.buyer, seller: party.seller ?? asked.get(party.projectId)! });
  }
  return parties;
}

/**
 * The seller of a project's next invoice, as invoicePartiesOf finds it: billing's copy, else
 * identity's answer, kept. The hosted checkout page shows its name (docs/api-behaviour.md §22).
 */
export async function sellerOfProject(deps: BillingDeps, projectId: string): Promise<InvoiceSeller> {
  const kept = await deps.invoiceParties.sellerOf(projectId);
  return kept ?? (await sellersFromIdentity(deps, [projectId])).get(projectId)!;
}

/** Identity's sellers of these projects, kept as billing's copies, by project id. */
async function sellersFromIdentity(
  deps: BillingDeps,
  projectIds: string[],
  transaction?: Transaction,
): Promise<Map<string, InvoiceSeller>> {
  const asked = new Map<string, InvoiceSeller>();
  if (projectIds.length === 0) return asked;
  const answers = await Promise.all(projectIds.map((projectId) => sellerFromIdentity(deps, projectId)));
  // Sorted by project: two transactions asking for the same projects store them in one order.
  await deps.invoiceParties.keepSellers(latestSellerPerProject(answers), deps.clock.now(), transaction);
  for (const answer of answers) asked.set(answer.projectId, answer.seller);
  return asked;
}

/** Identity's answer for one project (GetProjectSeller, with billing's deadline). */
async function sellerFromIdentity(deps: BillingDeps, projectId: string): Promise<ProjectSeller> {
  try {
    const answer = await deps.identity.getProjectSeller({ projectId });
    if (!answer.seller || !answer.updatedAt) throw new Error('GetProjectSeller answered without a seller');
    return {
      projectId,
      merchantId: answer.merchantId,
      seller: sellerOfMessage(answer.seller),
      updatedAt: answer.updatedAt,
    };
  } catch (err) {
    // Identity's NOT_FOUND would read as "the invoice's resource was not found".
    if (isGrpcServiceError(err) && readRemoteError(err).reason === 'not_found') {
      throw new DomainError(
        'failed_precondition',
        `No seller for project ${projectId}: identity knows no such project`,
      );
    }
    throw err;
  }
}
