import { CURRENCIES, DomainError, isUuid, toMajorUnits, type FieldViolation } from '@billing/platform';
import { VERIFICATION_CHARGE_AMOUNT, type VerifiedTransaction } from '@billing/payments';
import { totalInvoice, type InvoiceTax, type InvoiceTotals } from './invoice-totals';
import { nextInvoiceDiscount, type SubscriptionDiscount } from './subscription-discount';
import { isInterval, periodAt, trialWindow, type BillingPeriod, type Interval } from './periods';
import type { SubscriptionStatus } from './subscription-status';
import { MAX_TAX_RATES } from './tax-rates';

/** The plan as catalog sold it; billing keeps this copy on the subscription. */
export interface PlanSnapshot {
  planId: string;
  name: string;
  amount: number;
  currency: string;
  interval: Interval;
  intervalCount: number;
  trialPeriodDays: number;
  usageUnitAmount: number | null;
  /** The plan's default tax rates (docs/api-behaviour.md §21), lower case, in order. */
  taxRateIds: string[];
}

/** Checks what a caller says was sold; a bad snapshot is the caller's bug, never a charge. */
export function validatePlanSnapshot(
  plan: Omit<PlanSnapshot, 'interval' | 'usageUnitAmount' | 'taxRateIds'> & {
    interval: string;
    usageUnitAmount?: number;
    taxRateIds?: string[];
  },
): PlanSnapshot {
  const violations: FieldViolation[] = [];
  const bad = (field: string, msg: string, input: unknown) =>
    violations.push({ loc: ['plan', field], msg, type: 'value_error', input });
  if (!isUuid(plan.planId)) bad('plan_id', 'Input should be a valid UUID', plan.planId);
  if (!plan.name) bad('name', 'Field required', plan.name);
  if (!Number.isSafeInteger(plan.amount) || plan.amount < 0)
    bad('amount', 'Input should be >= 0 minor units', plan.amount);
  if (!(CURRENCIES as readonly string[]).includes(plan.currency)) bad('currency', 'Unknown currency', plan.currency);
  if (!isInterval(plan.interval)) bad('interval', 'Unknown interval', plan.interval);
  if (!Number.isInteger(plan.intervalCount) || plan.intervalCount < 1) {
    bad('interval_count', 'Input should be >= 1', plan.intervalCount);
  }
  if (!Number.isInteger(plan.trialPeriodDays) || plan.trialPeriodDays < 0) {
    bad('trial_period_days', 'Input should be >= 0', plan.trialPeriodDays);
  }
  const taxRateIds = (plan.taxRateIds ?? []).map((id) => id.toLowerCase());
  if (
    taxRateIds.length > MAX_TAX_RATES ||
    new Set(taxRateIds).size !== taxRateIds.length ||
    !taxRateIds.every(isUuid)
  ) {
    bad('tax_rate_ids', `Input should be at most ${MAX_TAX_RATES} distinct tax rate ids`, plan.taxRateIds);
  }
  if (violations.length) throw DomainError.invalid(violations, 'Invalid plan snapshot');
  return { ...plan, interval: plan.interval as Interval, usageUnitAmount: plan.usageUnitAmount ?? null, taxRateIds };
}

/**
 * The hosted page starts every checkout transaction with its session's id in the provider's
 * metadata: a transaction naming another session is not this session's payment, whatever
 * reference a caller passes. `required`: a transaction naming no session is refused too (a
 * refund is only ever made of a payment provably this session's).
 */
export function assertPaymentOfSession(
  transaction: VerifiedTransaction,
  checkoutSessionId: string,
  options: { required: boolean } = { required: false },
): void {
  const named = transaction.metadata.checkout_session_id;
  if (named === checkoutSessionId || (named === undefined && !options.required)) return;
  throw new DomainError('failed_precondition', 'This payment belongs to another checkout session');
}

/** A checkout's first invoice and what the hosted page charges for it (docs/api-behaviour.md §21). */
export interface CheckoutQuote {
  /** The first invoice's money: the first period after the trial, if there is one. */
  totals: InvoiceTotals;
  /** The charge is only a card check, refunded after completion: a trial, or nothing to pay. */
  verification: boolean;
  /** What the hosted checkout charges, minor units. */
  charge: number;
}

/**
 * The one rule of what a checkout charges, for the page (QuoteFirstInvoice) and for the check of
 * the payment alike: the first invoice as totalInvoice makes it (the plan's price, the
 * session's discount, then its taxes; no balance: §20), or the verification charge when that
 * invoice is for after a trial or comes to nothing. The customer is unknown until the payment
 * (`tax.exempt` NONE).
 */
export function quoteCheckout(
  plan: PlanSnapshot,
  discount: SubscriptionDiscount | null,
  tax: InvoiceTax,
): CheckoutQuote {
  const totals = totalInvoice([{ type: 'SUBSCRIPTION', amount: plan.amount }], nextInvoiceDiscount(discount), tax, 0);
  const verification = plan.trialPeriodDays > 0 || totals.amountDue === 0;
  return { totals, verification, charge: verification ? VERIFICATION_CHARGE_AMOUNT : totals.amountDue };
}

/**
 * A checkout completes only on the provider's word that exactly the expected charge succeeded:
 * the quote's (quoteCheckout), the rule the hosted page used to start the transaction. Anything
 * else is `payment_required` with the provider's own words, so the payer learns why.
 */
export function assertCheckoutPaid(
  transaction: VerifiedTransaction | null,
  plan: PlanSnapshot,
  quote: CheckoutQuote,
): VerifiedTransaction {
  if (!transaction) throw new DomainError('payment_required', 'The payment provider does not know this transaction');
  if (transaction.status !== 'success') {
    throw new DomainError('payment_required', transaction.gatewayResponse || `Payment ${transaction.status}`);
  }
  const expected = quote.charge;
  if (transaction.amount !== expected || transaction.currency.toUpperCase() !== plan.currency) {
    throw new DomainError(
      'payment_required',
      `The payment was ${toMajorUnits(transaction.amount)} ${transaction.currency}, ` +
        `expected ${toMajorUnits(expected)} ${plan.currency}`,
    );
  }
  return transaction;
}

export interface SubscriptionStart {
  status: SubscriptionStatus;
  billingAnchor: Date;
  trialEnd: Date | null;
  /** The current period: the trial window during a trial (docs/api-behaviour.md §16.6). */
  period: BillingPeriod;
}

/**
 * How a subscription bought at `now` starts: a trial runs whole days and paid periods are then
 * anchored on its end (docs/api-behaviour.md §16.19); without a trial the first paid period starts now.
 */
export function subscriptionStart(plan: PlanSnapshot, now: Date): SubscriptionStart {
  if (plan.trialPeriodDays > 0) {
    const trial = trialWindow(now, plan.trialPeriodDays);
    return { status: 'TRIALING', billingAnchor: trial.end, trialEnd: trial.end, period: trial };
  }
  return {
    status: 'ACTIVE',
    billingAnchor: now,
    trialEnd: null,
    period: periodAt(now, plan.interval, plan.intervalCount, 0),
  };
}

/** What a new subscription takes from its plan and its start; the rest is the caller's. */
export function subscriptionTerms(plan: PlanSnapshot, start: SubscriptionStart) {
  return {
    planId: plan.planId,
    planName: plan.name,
    amount: plan.amount,
    currency: plan.currency,
    interval: plan.interval,
    intervalCount: plan.intervalCount,
    usageUnitAmount: plan.usageUnitAmount,
    planTaxRateIds: plan.taxRateIds,
    status: start.status,
    billingAnchor: start.billingAnchor,
    trialEnd: start.trialEnd,
    currentPeriodStart: start.period.start,
    currentPeriodEnd: start.period.end,
  };
}

/** What the ledger row of a successful provider payment takes from the provider's verification. */
export function verifiedPaymentFields(verified: VerifiedTransaction) {
  return {
    reference: verified.reference,
    amount: verified.amount,
    currency: verified.currency.toUpperCase(),
    status: 'SUCCEEDED' as const,
    gatewayResponse: verified.gatewayResponse || null,
    providerResponse: { status: verified.status, paid_at: verified.paidAt?.toISOString() ?? null },
  };
}
