import type { EventEnvelope } from '@billing/platform';
import { InvalidAnalyticsFact, scopedFactsOf } from '../src/events/analytics-facts';

// docs/api-behaviour.md §25: what the consumer takes from an envelope's `analytics` field.

const PROJECT = '00000000-0000-4000-8000-000000000001';
const envelope = (analytics?: unknown, overrides: Partial<EventEnvelope> = {}): EventEnvelope => ({
  id: 'evt_1',
  event: 'subscription.updated',
  data: { id: 'sub_1' },
  created_at: '2027-02-01T00:00:00.000Z',
  project_id: PROJECT,
  livemode: false,
  ...(analytics === undefined ? {} : { analytics: analytics as object }),
  ...overrides,
});
const subscriptionFact = {
  kind: 'subscription_mrr',
  subscription_id: 'sub_1',
  customer_id: 'cus_1',
  currency: 'NGN',
  status: 'ACTIVE',
  contributing: true,
  mrr: 10_000,
};

describe('the facts of an event (scopedFactsOf)', () => {
  it('an event without facts carries none', () => {
    expect(scopedFactsOf(envelope())).toEqual([]);
    expect(scopedFactsOf(envelope(null))).toEqual([]);
  });

  it("takes the fact with its event's id, project, mode and time", () => {
    expect(scopedFactsOf(envelope(subscriptionFact))).toEqual([
      {
        eventId: 'evt_1',
        projectId: PROJECT,
        livemode: false,
        at: Date.UTC(2027, 1, 1),
        fact: subscriptionFact,
      },
    ]);
  });

  it('takes each fact of a list', () => {
    const refund = { kind: 'refund', refund_id: 'rf_1', currency: 'USD', amount: 500 };
    const payment = {
      kind: 'invoice_payment',
      invoice_id: 'in_1',
      customer_id: 'cus_1',
      currency: 'NGN',
      charged: 0,
      tax: 0,
    };
    expect(scopedFactsOf(envelope([refund, payment])).map((f) => f.fact)).toEqual([refund, payment]);
  });

  it("takes a downgrade's credit invoice: nothing charged, a negative tax given back", () => {
    const credit = {
      kind: 'invoice_payment',
      invoice_id: 'in_credit',
      customer_id: 'cus_1',
      currency: 'NGN',
      charged: 0,
      tax: -6725,
    };
    expect(scopedFactsOf(envelope(credit)).map((f) => f.fact)).toEqual([credit]);
    expect(() => scopedFactsOf(envelope({ ...credit, charged: -1 }))).toThrow(InvalidAnalyticsFact);
  });

  it.each([
    ['an unknown kind', { ...subscriptionFact, kind: 'seat_count' }],
    ['a negative MRR', { ...subscriptionFact, mrr: -1 }],
    ['a fractional amount', { kind: 'refund', refund_id: 'rf_1', currency: 'NGN', amount: 1.5 }],
    ['a currency not upper case', { ...subscriptionFact, currency: 'ngn' }],
    ['an unknown status', { ...subscriptionFact, status: 'GONE' }],
  ])('refuses %s (the event is parked)', (_what, fact) => {
    expect(() => scopedFactsOf(envelope(fact))).toThrow(InvalidAnalyticsFact);
  });

  it('refuses facts of an event without a project, a mode or a time', () => {
    expect(() => scopedFactsOf(envelope(subscriptionFact, { project_id: null }))).toThrow(InvalidAnalyticsFact);
    expect(() => scopedFactsOf(envelope(subscriptionFact, { livemode: null }))).toThrow(InvalidAnalyticsFact);
    expect(() => scopedFactsOf(envelope(subscriptionFact, { created_at: 'yesterday' }))).toThrow(InvalidAnalyticsFact);
  });
});
