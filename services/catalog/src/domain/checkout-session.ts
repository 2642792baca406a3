import { randomInt } from 'node:crypto';
import { DomainError, type FieldViolation, type TaxAmountFigures } from '@billing/platform';

export const CHECKOUT_STATUSES = ['PENDING', 'COMPLETED', 'EXPIRED', 'CANCELLED'] as const;
export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];
export type CheckoutEvent = 'complete' | 'expire' | 'cancel';

/**
 * A provider transaction started from the hosted page: STARTED until its outcome is known; USED
 * when it completed the session; REFUNDED by billing when it completed nothing (a second Pay,
 * paid after the session ended); NOT_PAID when the provider refused it or never saw it.
 */
export type CheckoutPaymentState = 'STARTED' | 'USED' | 'REFUNDED' | 'NOT_PAID';

/**
 * A payment of an ended session can still succeed at the provider for a while (the payer still
 * on its page): it is watched, and refunded if it does, for this long after it started.
 */
export const LATE_PAYMENT_WATCH_MS = 48 * 3600 * 1000;

/** The whole life of a session (docs/api-behaviour.md §5): only PENDING moves, every end is final. */
export const CHECKOUT_TRANSITIONS: Record<CheckoutStatus, Partial<Record<CheckoutEvent, CheckoutStatus>>> = {
  PENDING: { complete: 'COMPLETED', expire: 'EXPIRED', cancel: 'CANCELLED' },
  COMPLETED: {},
  EXPIRED: {},
  CANCELLED: {},
};

export function nextCheckoutStatus(status: CheckoutStatus, event: CheckoutEvent): CheckoutStatus {
  const next = CHECKOUT_TRANSITIONS[status][event];
  if (!next) throw new DomainError('failed_precondition', `A ${status.toLowerCase()} checkout session cannot ${event}`);
  return next;
}

export const DEFAULT_EXPIRY_MINUTES = 1440;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 16 base62 characters = ~95 bits: not guessable, and still a short URL. */
const CODE_LENGTH = 16;

export function generateCheckoutCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += BASE62[randomInt(BASE62.length)];
  return code;
}

export const isCheckoutCode = (code: string) => /^[0-9A-Za-z]{8,16}$/.test(code);

export interface CheckoutDraft {
  successUrl?: string;
  cancelUrl?: string;
  customerEmail?: string;
  customerName?: string;
  expiresInMinutes: number;
  metadata?: Record<string, unknown>;
  /** Redeemed for the session at creation (docs/api-behaviour.md §19). */
  couponCode?: string;
  /** The hosted page asks for a promotion code instead. */
  allowPromotionCodes?: boolean;
}

/**
 * Billing's quote of a session's first invoice (QuoteFirstInvoice, docs/api-behaviour.md §21),
 * kept on the session (migration 0007): the page shows it, the payment charges chargeAmount, and
 * billing checks the payment and writes the invoice by the same rule. Minor units.
 */
export interface CheckoutQuote {
  subtotal: number;
  discount: number;
  tax: number;
  totalExcludingTax: number;
  /** The first invoice's total: subtotal - discount + the exclusive taxes. */
  amount: number;
  /** One rate's tax each, the rate as it was then (billing.v1.InvoiceTaxAmount). */
  taxAmounts: TaxAmountFigures[];
  /** What the payment charges: amount, or the verification charge (a trial, nothing to pay). */
  chargeAmount: number;
  verificationCharge: boolean;
}

/** The rates a session's checkout applies: its own, or its plan's as it kept them (§21). */
export const sessionTaxRateIds = (session: { taxRateIds: string[] | null; planTaxRateIds: string[] }) =>
  session.taxRateIds ?? session.planTaxRateIds;

/** The one redemption a checkout session holds (its coupon, or the promotion code applied on its page). */
export const checkoutRedemptionKey = (sessionId: string) => `checkout:${sessionId}`;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function isWebUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Checks a new session's fields; returns the expiry in minutes with the default applied. */
export function validateCheckoutDraft(draft: CheckoutDraft): number {
  const violations: FieldViolation[] = [];
  for (const [field, value] of [
    ['success_url', draft.successUrl],
    ['cancel_url', draft.cancelUrl],
  ] as const) {
    if (value !== undefined && !isWebUrl(value)) {
      violations.push({
        loc: ['body', field],
        msg: 'Input should be a valid http or https URL',
        type: 'url_parsing',
        input: value,
      });
    }
  }
  if (draft.customerEmail !== undefined && !EMAIL.test(draft.customerEmail)) {
    violations.push({
      loc: ['body', 'customer_email'],
      msg: 'value is not a valid email address',
      type: 'value_error',
      input: draft.customerEmail,
    });
  }
  const minutes = draft.expiresInMinutes || DEFAULT_EXPIRY_MINUTES;
  if (minutes < 5 || minutes > 1440) {
    violations.push({
      loc: ['body', 'expires_in_minutes'],
      msg: 'Input should be between 5 and 1440',
      type: 'value_error',
      input: minutes,
    });
  }
  if (draft.couponCode !== undefined && draft.allowPromotionCodes) {
    violations.push({
      loc: ['body', 'allow_promotion_codes'],
      msg: 'Send either coupon_code or allow_promotion_codes, not both',
      type: 'value_error',
      input: true,
    });
  }
  if (violations.length) throw DomainError.invalid(violations);
  return minutes;
}

export const isValidEmail = (email: string) => EMAIL.test(email);
