import type { ProjectScope } from '@billing/platform';
import { validateCreditNoteRequest } from '../../domain/credit-notes';
import type { BillingDeps } from '../../billing-deps';
import { draftCreditNote, type CreditNoteDraft } from '../../invoicing/credit-notes';

export interface PreviewCreditNoteCommand {
  invoiceId: string;
  amount: number;
  reason: string;
  refundTo: string;
  memo?: string;
}

/**
 * POST /invoices/{id}/credit-notes/preview (docs/api-behaviour.md §23): the note issuing would
 * make now (amount, tax per rate, reason, destination, memo), or the very refusal issuing would
 * answer, drafted by the same rules (invoicing/credit-notes.ts). Changes nothing.
 */
export async function previewCreditNote(
  deps: BillingDeps,
  scope: ProjectScope,
  command: PreviewCreditNoteCommand,
): Promise<CreditNoteDraft> {
  const request = validateCreditNoteRequest(command);
  return draftCreditNote(deps, await deps.invoices.get(scope, command.invoiceId), request);
}
