import { DomainError } from '@billing/platform';
import {
  nextStatus,
  SUBSCRIPTION_EVENTS,
  SUBSCRIPTION_STATUSES,
  type SubscriptionEvent,
  type SubscriptionStatus,
} from '../src/domain/subscription-status';

/**
 * docs/api-behaviour.md §8 written out independently of the implementation's table: every status x
 * event pair is either here (allowed, with its next status) or refused.
 */
const ALLOWED: Record<string, SubscriptionStatus> = {
  'TRIALING trial_ended_paid': 'ACTIVE',
  'TRIALING trial_ended_payment_failed': 'PAST_DUE',
  'TRIALING pause': 'PAUSED',
  'TRIALING cancel': 'CANCELLED',
  'TRIALING period_end_cancel': 'CANCELLED',
  'ACTIVE renewal_failed': 'PAST_DUE',
  'ACTIVE pause': 'PAUSED',
  'ACTIVE cancel': 'CANCELLED',
  'ACTIVE period_end_cancel': 'CANCELLED',
  'ACTIVE fixed_term_ended': 'EXPIRED',
  'PAST_DUE retry_succeeded': 'ACTIVE',
  'PAST_DUE dunning_exhausted': 'CANCELLED',
  'PAST_DUE cancel': 'CANCELLED',
  'PAST_DUE period_end_cancel': 'CANCELLED',
  'PAST_DUE invoice_voided': 'ACTIVE',
  'PAUSED resume_paid': 'ACTIVE',
  'PAUSED resume_failed': 'PAST_DUE',
  'PAUSED cancel': 'CANCELLED',
  'PAUSED period_end_cancel': 'CANCELLED',
};

const pairs: [SubscriptionStatus, SubscriptionEvent][] = SUBSCRIPTION_STATUSES.flatMap((status) =>
  SUBSCRIPTION_EVENTS.map((event) => [status, event] as [SubscriptionStatus, SubscriptionEvent]),
);

describe('subscription state machine', () => {
  it('covers every status and event of docs/api-behaviour.md §8', () => {
    expect([...SUBSCRIPTION_STATUSES].sort()).toEqual(
      ['ACTIVE', 'CANCELLED', 'EXPIRED', 'PAST_DUE', 'PAUSED', 'TRIALING'].sort(),
    );
    expect(SUBSCRIPTION_EVENTS).toHaveLength(12);
    expect(pairs).toHaveLength(72);
  });

  it.each(pairs)('%s + %s', (status, event) => {
    const expected = ALLOWED[`${status} ${event}`];
    if (expected) {
      expect(nextStatus(status, event)).toBe(expected);
      return;
    }
    let error: unknown;
    try {
      nextStatus(status, event);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe('failed_precondition');
    expect((error as DomainError).message).toMatch(/cannot/);
  });

  it('treats CANCELLED and EXPIRED as final', () => {
    for (const status of ['CANCELLED', 'EXPIRED'] as const) {
      for (const event of SUBSCRIPTION_EVENTS) expect(() => nextStatus(status, event)).toThrow(DomainError);
    }
  });
});
