/**
 * The payment provider as the platform sees it (docs/api-behaviour.md §6). Amounts are integer minor
 * units (kobo for NGN). Test mode talks to the sandbox provider, live mode to Paystack; both
 * speak the same HTTP protocol, so one client class implements this interface for both.
 */
export interface PaymentProvider {
  /** Creates the customer record at the provider; returns its code (`gateway_customer_id`). */
  createCustomer(input: { email: string; name?: string }): Promise<ProviderCustomer>;

  /** Starts a hosted payment; the customer is sent to `authorizationUrl`. */
  initializeTransaction(input: InitializeTransactionInput): Promise<InitializedTransaction>;

  /** The provider's current view of a transaction; `null` when it does not know the reference. */
  verifyTransaction(reference: string): Promise<VerifiedTransaction | null>;

  /**
   * Charges a saved authorization. `reference` makes the charge idempotent: the same reference
   * never charges twice (a repeat returns the first outcome).
   */
  chargeAuthorization(input: ChargeAuthorizationInput): Promise<VerifiedTransaction>;

  /**
   * Refunds all or part (`amount`) of a successful transaction. Paystack refunds carry no
   * idempotency key: `merchantNote` (the caller's own refund reference) is kept with the refund
   * and listed back by `listRefunds`, so a caller that lost the answer can look before resending.
   */
  refund(input: { transactionReference: string; amount?: number; merchantNote?: string }): Promise<ProviderRefund>;

  /** Every refund the provider holds for one transaction (Paystack's `GET /refund?transaction=`). */
  listRefunds(transactionReference: string): Promise<ProviderRefund[]>;
}

export interface ProviderCustomer {
  customerCode: string;
  email: string;
}

export interface InitializeTransactionInput {
  email: string;
  amount: number;
  currency: string;
  reference: string;
  callbackUrl: string;
  metadata?: Record<string, unknown>;
}

export interface InitializedTransaction {
  authorizationUrl: string;
  accessCode: string;
  reference: string;
}

export type TransactionStatus = 'success' | 'failed' | 'abandoned' | 'pending';

export interface ProviderAuthorization {
  authorizationCode: string;
  reusable: boolean;
  last4: string;
  brand: string;
  expMonth: string;
  expYear: string;
}

export interface VerifiedTransaction {
  reference: string;
  status: TransactionStatus;
  amount: number;
  currency: string;
  /** Provider's words for the outcome, e.g. "Approved", "Declined", "Insufficient Funds". */
  gatewayResponse: string;
  paidAt: Date | null;
  customer: ProviderCustomer | null;
  authorization: ProviderAuthorization | null;
  metadata: Record<string, unknown>;
}

export interface ChargeAuthorizationInput {
  authorizationCode: string;
  email: string;
  amount: number;
  currency: string;
  reference: string;
  metadata?: Record<string, unknown>;
}

export interface ProviderRefund {
  id: string;
  transactionReference: string;
  amount: number;
  status: 'pending' | 'processed' | 'failed';
  /** What the caller sent as `merchantNote`; null when the provider did not echo one. */
  merchantNote: string | null;
}

/** A provider answered with an error or could not be reached; `retryable` for 5xx/network. */
export class PaymentProviderError extends Error {
  constructor(
    message: string,
    readonly httpStatus: number | null,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'PaymentProviderError';
  }
}
