import type { CardBehavior } from '@billing/payments';

export { CARD_BEHAVIORS, type CardBehavior } from '@billing/payments';

/** Paystack's transaction statuses that the sandbox produces. */
export type TransactionStatus = 'pending' | 'success' | 'failed' | 'abandoned';

/** `card`: paid on the hosted page; `authorization`: a saved card charged by the merchant. */
export type TransactionChannel = 'card' | 'authorization';

export type RefundStatus = 'pending' | 'processed' | 'failed';

export interface ChargeOutcome {
  status: Extract<TransactionStatus, 'success' | 'failed'>;
  /** Paystack's words; merchants show them and billing records them. */
  gatewayResponse: string;
}

/** What a charge on a card ends as, given how the card was told to behave. */
export const CHARGE_OUTCOMES: Record<CardBehavior, ChargeOutcome> = {
  succeed: { status: 'success', gatewayResponse: 'Approved' },
  decline: { status: 'failed', gatewayResponse: 'Declined' },
  insufficient_funds: { status: 'failed', gatewayResponse: 'Insufficient Funds' },
};

/** The buttons of the hosted payment page (docs/api-behaviour.md §16.3) and the card behavior each stands for. */
export const PAGE_OUTCOMES = {
  success: 'succeed',
  declined: 'decline',
  insufficient_funds: 'insufficient_funds',
} as const satisfies Record<string, CardBehavior>;

export type PageOutcome = keyof typeof PAGE_OUTCOMES;

export const isPageOutcome = (value: unknown): value is PageOutcome =>
  typeof value === 'string' && Object.hasOwn(PAGE_OUTCOMES, value);

/** Paystack's test Visa card (4084 0840 8408 4081): what a payment on the hosted page saves. */
export const SANDBOX_CARD = { bin: '408408', last4: '4081', brand: 'visa', cardType: 'visa', bank: 'TEST BANK' };

/** Card expiry for a card saved now: three years ahead, so saved cards never expire during tests. */
export function sandboxCardExpiry(now: Date): { expMonth: string; expYear: string } {
  return { expMonth: '12', expYear: String(now.getUTCFullYear() + 3) };
}
