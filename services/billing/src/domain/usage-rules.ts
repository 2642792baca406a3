import { DomainError } from '@billing/platform';
import { hasEnded, type SubscriptionStatus } from './subscription-status';

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
export const MAX_DESCRIPTION_LENGTH = 1000;

/** Why a subscription takes no usage, or null when it does. */
export function usageRefusal(subscription: { status: SubscriptionStatus }): string | null {
  // Usage on a finished subscription is refused (docs/api-behaviour.md §9).
  return hasEnded(subscription.status) ? `Subscription is ${subscription.status}; usage is not accepted` : null;
}

/** Checks the free-text fields of a record; returns the problem or null. */
export function textFieldProblem(record: {
  description?: string | null;
  idempotencyKey?: string | null;
}): string | null {
  if (record.idempotencyKey && record.idempotencyKey.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    return `idempotency_key must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`;
  }
  if (record.description && record.description.length > MAX_DESCRIPTION_LENGTH) {
    return `description must be at most ${MAX_DESCRIPTION_LENGTH} characters`;
  }
  return null;
}

export const refused = (reason: string) => new DomainError('failed_precondition', reason);
