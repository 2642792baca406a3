import type { DocumentsDeps } from '../../documents-deps';

/** What the page tells a payer back from the provider (billing's outcome, docs/api-behaviour.md §22). */
export type PaymentNotice = 'paid' | 'refunded' | 'not_paid' | 'pending';

const NOTICES: Record<string, PaymentNotice> = {
  PAID: 'paid',
  REFUNDED: 'refunded',
  NOT_PAID: 'not_paid',
  PENDING: 'pending',
};

/**
 * The provider sent the payer back: billing applies the payment once, however often this is
 * asked (a reload, two tabs). A reference the invoice's page did not start changes nothing and
 * tells nothing (null).
 */
export async function finishInvoicePayment(
  deps: DocumentsDeps,
  token: string,
  transactionReference: string,
): Promise<PaymentNotice | null> {
  return NOTICES[await deps.documents.applyPayment(token, transactionReference)] ?? null;
}
