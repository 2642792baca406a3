import type { ProviderRefund } from '@billing/payments';

/**
 * Which of the provider's refunds of a transaction is ours, when our answer was lost (a timeout,
 * a crash between the provider's acceptance and our record). Paystack refunds carry no
 * idempotency key, so billing sends its own refund reference as `merchant_note` and looks for it
 * here before sending anything again. Should a provider not echo notes at all, a refund of the
 * same amount that none of our other refunds recorded is taken as ours: refunding twice is the
 * one outcome this must never produce.
 */
export function findOwnRefund(
  listed: ProviderRefund[],
  ours: { reference: string; amount: number },
  recordedElsewhere: ReadonlySet<string>,
): ProviderRefund | null {
  const noted = listed.find((refund) => refund.merchantNote === ours.reference);
  if (noted) return noted;
  if (listed.some((refund) => refund.merchantNote !== null)) return null;
  return listed.find((refund) => refund.amount === ours.amount && !recordedElsewhere.has(refund.id)) ?? null;
}
