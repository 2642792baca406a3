import { DomainError } from '@billing/platform';
import { PaymentProviderError } from '@billing/payments';

/**
 * Runs one payment-provider call and states its failure in the platform's terms: a provider
 * that cannot be reached is UNAVAILABLE (safe to retry: every call we make is idempotent or
 * read-only), a provider that refuses is a business-rule failure carrying its own words.
 */
export async function callProvider<T>(action: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (!(err instanceof PaymentProviderError)) throw err;
    if (err.retryable) {
      throw new DomainError('unavailable', `The payment provider could not be reached to ${action}; please retry`);
    }
    throw new DomainError('failed_precondition', `The payment provider refused to ${action}: ${err.message}`);
  }
}
