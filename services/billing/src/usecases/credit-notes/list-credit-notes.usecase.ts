import { isUuid, type PageRequest, type ProjectScope } from '@billing/platform';
import type { CreditNoteModel } from '../../db/models';
import type { BillingDeps } from '../../billing-deps';

export interface CreditNoteFilter {
  invoiceId?: string;
  customerId?: string;
}

/** GET /credit-notes (docs/api-behaviour.md §23): newest first, filtered by invoice and customer. */
export async function listCreditNotes(
  deps: BillingDeps,
  scope: ProjectScope,
  page: PageRequest,
  filter: CreditNoteFilter,
): Promise<CreditNoteModel[]> {
  // An id that cannot exist matches nothing (an empty page, not a database error).
  if ((filter.invoiceId && !isUuid(filter.invoiceId)) || (filter.customerId && !isUuid(filter.customerId))) {
    return [];
  }
  return deps.creditNotes.list(scope, page, filter);
}
