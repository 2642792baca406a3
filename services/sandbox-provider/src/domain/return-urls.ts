/**
 * Where the payer goes after the hosted page: the merchant's callback with Paystack's `trxref` and
 * `reference` added (its own query kept), so the merchant can verify what happened.
 */
export function callbackUrlWithReference(callbackUrl: string, reference: string): string {
  const url = new URL(callbackUrl);
  url.searchParams.set('trxref', reference);
  url.searchParams.set('reference', reference);
  return url.toString();
}

export function isWebUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * "Cancel payment": Paystack's `metadata.cancel_action` when the merchant set one, else back to
 * the callback with the reference (verifying it shows the payment was not made). Null when the
 * merchant gave neither: then there is nowhere to send the payer.
 */
export function cancelUrlFor(transaction: {
  reference: string;
  callbackUrl: string | null;
  metadata: Record<string, unknown>;
}): string | null {
  const cancelAction = transaction.metadata.cancel_action;
  if (isWebUrl(cancelAction)) return cancelAction;
  return transaction.callbackUrl ? callbackUrlWithReference(transaction.callbackUrl, transaction.reference) : null;
}
