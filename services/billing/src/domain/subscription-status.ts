import { DomainError } from '@billing/platform';

export const SUBSCRIPTION_STATUSES = ['ACTIVE', 'PAST_DUE', 'CANCELLED', 'PAUSED', 'TRIALING', 'EXPIRED'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** What can happen to a subscription (docs/api-behaviour.md §8). */
export const SUBSCRIPTION_EVENTS = [
  'trial_ended_paid',
  'trial_ended_payment_failed',
  'renewal_failed',
  'retry_succeeded',
  'dunning_exhausted',
  'pause',
  'resume_paid',
  'resume_failed',
  'cancel',
  'period_end_cancel',
  'fixed_term_ended',
  'invoice_voided',
] as const;
export type SubscriptionEvent = (typeof SUBSCRIPTION_EVENTS)[number];

/**
 * The whole state machine in one table: a missing cell is a refused transition. Renewals of an
 * ACTIVE subscription keep it ACTIVE and are not events here; CANCELLED and EXPIRED are final.
 */
export const SUBSCRIPTION_TRANSITIONS: Record<
  SubscriptionStatus,
  Partial<Record<SubscriptionEvent, SubscriptionStatus>>
> = {
  TRIALING: {
    trial_ended_paid: 'ACTIVE',
    trial_ended_payment_failed: 'PAST_DUE',
    pause: 'PAUSED',
    cancel: 'CANCELLED',
    period_end_cancel: 'CANCELLED',
  },
  ACTIVE: {
    renewal_failed: 'PAST_DUE',
    pause: 'PAUSED',
    cancel: 'CANCELLED',
    period_end_cancel: 'CANCELLED',
    fixed_term_ended: 'EXPIRED',
  },
  PAST_DUE: {
    retry_succeeded: 'ACTIVE',
    dunning_exhausted: 'CANCELLED',
    cancel: 'CANCELLED',
    period_end_cancel: 'CANCELLED',
    // Voiding the open invoice forgives the period (docs/api-behaviour.md §16.22): dunning stops.
    invoice_voided: 'ACTIVE',
  },
  PAUSED: {
    resume_paid: 'ACTIVE',
    resume_failed: 'PAST_DUE',
    cancel: 'CANCELLED',
    // "Any non-final" status may be cancelled at the end of the period it is in.
    period_end_cancel: 'CANCELLED',
  },
  CANCELLED: {},
  EXPIRED: {},
};

/** The status after `event`; a transition the table does not hold is a 400 for the caller. */
export function nextStatus(status: SubscriptionStatus, event: SubscriptionEvent): SubscriptionStatus {
  const next = SUBSCRIPTION_TRANSITIONS[status][event];
  if (!next) {
    throw new DomainError(
      'failed_precondition',
      `A ${status.toLowerCase().replace('_', ' ')} subscription cannot ${event.replace(/_/g, ' ')}`,
    );
  }
  return next;
}

/** The final statuses (docs/api-behaviour.md §8): nothing is billed or kept for them any more. */
export const hasEnded = (status: SubscriptionStatus): boolean => status === 'CANCELLED' || status === 'EXPIRED';
