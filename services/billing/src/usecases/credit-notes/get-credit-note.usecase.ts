import type { ProjectScope } from '@billing/platform';
import type { CreditNoteModel } from '../../db/models';
import type { BillingDeps } from '../../billing-deps';

/** GET /credit-notes/{id} (docs/api-behaviour.md §23): 404 unknown, 403 another project's. */
export function getCreditNote(deps: BillingDeps, scope: ProjectScope, creditNoteId: string): Promise<CreditNoteModel> {
  return deps.creditNotes.get(scope, creditNoteId);
}
