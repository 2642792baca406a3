import { randomUUID } from 'node:crypto';
import type { ProjectScope } from '@billing/platform';
import type { CreditNoteModel, RefundModel } from '../../db/models';
import { validateCreditNoteRequest } from '../../domain/credit-notes';
import type { BillingDeps } from '../../billing-deps';
import { draftCreditNote, issueCreditNote as issueDraft } from '../../invoicing/credit-notes';
import { issueRefunds } from '../../invoicing/refund-issuing';

export interface IssueCreditNoteCommand {
  invoiceId: string;
  /** Minor units, above 0. */
  amount: number;
  reason: string;
  refundTo: string;
  memo?: string;
  /** The caller's Idempotency-Key: a retry with it finds this note instead of issuing another. */
  idempotencyKey?: string;
}

/**
 * POST /invoices/{id}/credit-notes (docs/api-behaviour.md §23). In one transaction holding the
 * invoice's row lock: the Idempotency-Key stored with the note's id, the domain's refusal rules
 * (a 400 saying what remains, nothing written), the note's number, and where its money goes: a
 * PENDING refund (CARD) or a balance credit (BALANCE), with credit_note.created. A CARD note's
 * refund is sent after commit, once, through refund-issuing.ts; a crash between the provider's
 * answer and its record is finished by the refund sweep (docs/payment-recovery.md). A retry with
 * the key answers the note the first request issued (its refund is the first request's or the
 * sweep's to send), and the money moves once.
 */
export async function issueCreditNote(
  deps: BillingDeps,
  scope: ProjectScope,
  command: IssueCreditNoteCommand,
): Promise<CreditNoteModel> {
  const request = validateCreditNoteRequest(command);
  const found = await deps.invoices.get(scope, command.invoiceId);
  const issued = await deps.sequelize.transaction(
    async (transaction): Promise<{ note: CreditNoteModel; refund: RefundModel | null }> => {
      const invoice = await deps.invoices.lock(found.id, transaction);
      if (!invoice) throw new Error(`invoice ${found.id} vanished`);
      let id = randomUUID();
      if (command.idempotencyKey) {
        const keyed = await deps.idempotencyKeys.claim(
          scope,
          {
            operation: 'issue_credit_note',
            key: command.idempotencyKey,
            fingerprint: `${invoice.id}:${request.amount}:${request.reason}:${request.refundTo}:${request.memo ?? ''}`,
            resource: { creditNoteId: id },
          },
          deps.clock.now(),
          transaction,
        );
        id = keyed.resource.creditNoteId;
        if (!keyed.fresh) {
          // Committed with its key, so it is there.
          const earlier = await deps.creditNotes.find(id, transaction);
          if (!earlier) throw new Error(`credit note ${id} of a stored key not found`);
          return { note: earlier, refund: null };
        }
      }
      const draft = await draftCreditNote(deps, invoice, request, transaction);
      return issueDraft(deps, draft, { id, at: await deps.clocks.now(scope, transaction) }, transaction);
    },
  );
  // After commit: a provider call cannot be rolled back with a transaction.
  if (issued.refund) await issueRefunds(deps, [issued.refund]);
  return issued.note;
}
