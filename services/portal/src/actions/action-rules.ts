import { DomainError } from '@billing/platform';
import type { PortalSettings } from '../domain/portal-configuration';

/** An action the configuration does not offer (docs/api-behaviour.md §24): refused, nothing changes. */
export const notOffered = (what: string) =>
  new DomainError('failed_precondition', `${what} is not offered in this portal`);

/** What "Cancel subscription" does under this configuration: at the period's end, or now. */
export function cancellationOf(settings: PortalSettings): { atPeriodEnd: boolean } {
  if (settings.cancellation === 'NONE') throw notOffered('Cancelling a subscription');
  return { atPeriodEnd: settings.cancellation === 'AT_PERIOD_END' };
}

/**
 * The Idempotency-Key billing gets for a confirmed action: the session and the one-time id its
 * confirmation page carried, so that a second press of "Confirm" (a double click, a reload)
 * finds the first change instead of making another.
 */
export function idempotencyKeyOf(sessionId: string, confirmationId: unknown): string | undefined {
  return typeof confirmationId === 'string' && /^[A-Za-z0-9_-]{16,64}$/.test(confirmationId)
    ? `portal:${sessionId}:${confirmationId}`
    : undefined;
}
