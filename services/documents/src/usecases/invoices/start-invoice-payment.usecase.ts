import type { DocumentsDeps } from '../../documents-deps';

/**
 * "Pay" on the hosted invoice page (docs/api-behaviour.md §22): billing starts the payment of
 * the amount due at the provider and answers where to send the payer.
 */
export function startInvoicePayment(deps: DocumentsDeps, token: string): Promise<string> {
  return deps.documents.startPayment(token);
}
