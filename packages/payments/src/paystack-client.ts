import { counter, latencyHistogram } from '@billing/platform';
import { z } from 'zod';
import {
  PaymentProviderError,
  type ChargeAuthorizationInput,
  type InitializeTransactionInput,
  type InitializedTransaction,
  type PaymentProvider,
  type ProviderAuthorization,
  type ProviderCustomer,
  type ProviderRefund,
  type TransactionStatus,
  type VerifiedTransaction,
} from './payment-provider';
import { ProviderHttp, type ProviderHttpOptions } from './provider-http';

export type PaystackClientOptions = ProviderHttpOptions;

/** The calls the client makes, as named on its metrics (never a path: paths carry references). */
const OPERATIONS = [
  'create_customer',
  'initialize_transaction',
  'verify_transaction',
  'charge_authorization',
  'refund',
  'list_refunds',
] as const;
type Operation = (typeof OPERATIONS)[number];

/**
 * How a call ended: `success` (an answer the client could read; a declined charge is one),
 * `refused` (a 4xx or `status: false`: the provider read the request and said no), `error` (a 5xx
 * or an answer the client could not read) or `unreachable` (no answer: connection refused or
 * reset, or none within PROVIDER_TIMEOUT_MS).
 */
const OUTCOMES = ['success', 'refused', 'error', 'unreachable'] as const;
type Outcome = (typeof OUTCOMES)[number];
const FAILURES = ['refused', 'error', 'unreachable'] as const;

const requestDuration = latencyHistogram(
  'payment_provider_request_duration_seconds',
  'Time a call to the payment provider took, from sending it to reading its answer, by provider, operation and outcome',
  ['provider', 'operation', 'outcome'],
);
const requestErrors = counter(
  'payment_provider_errors_total',
  'Calls to the payment provider that did not succeed, by provider, operation and outcome (refused, error, unreachable)',
  ['provider', 'operation', 'outcome'],
);

/**
 * The metric series of one client, bound once: a call only reads a clock and adds to a series
 * (a renewal run makes thousands of calls).
 */
function boundSeries(provider: string) {
  const series = {} as Record<
    Operation,
    { duration: Record<Outcome, { observe(seconds: number): void }>; errors: Record<Outcome, { inc(): void }> }
  >;
  for (const operation of OPERATIONS) {
    const duration = {} as Record<Outcome, { observe(seconds: number): void }>;
    const errors = {} as Record<Outcome, { inc(): void }>;
    for (const outcome of OUTCOMES) duration[outcome] = requestDuration.labels({ provider, operation, outcome });
    errors.success = { inc: () => undefined };
    for (const outcome of FAILURES) {
      const child = requestErrors.labels({ provider, operation, outcome });
      // Present from the start, so that a rate over the series is 0 rather than empty.
      child.inc(0);
      errors[outcome] = child;
    }
    series[operation] = { duration, errors };
  }
  return series;
}

function outcomeOf(err: unknown): Outcome {
  if (!(err instanceof PaymentProviderError)) return 'error';
  if (!err.retryable) return 'refused';
  return err.httpStatus === null ? 'unreachable' : 'error';
}

/** Minor units on the wire (Paystack's "kobo"): never a fraction, never unsafe. */
const minorUnits = z.number().int().nonnegative();

const customerData = z.object({ customer_code: z.string().min(1), email: z.string() });

const initializeData = z.object({
  authorization_url: z.string().min(1),
  access_code: z.string().min(1),
  reference: z.string().min(1),
});

/** Paystack sends `authorization: {}` and a bare customer on unpaid transactions. */
const authorizationData = z.object({
  authorization_code: z.string().min(1),
  reusable: z.boolean().default(false),
  last4: z.string().nullish(),
  brand: z.string().nullish(),
  exp_month: z.union([z.string(), z.number()]).nullish(),
  exp_year: z.union([z.string(), z.number()]).nullish(),
});

const transactionData = z.object({
  status: z.string(),
  reference: z.string().min(1),
  amount: minorUnits,
  currency: z.string().min(1),
  gateway_response: z.string().nullish(),
  paid_at: z.string().nullish(),
  // Some Paystack endpoints spell it camelCase.
  paidAt: z.string().nullish(),
  customer: z.unknown().optional(),
  authorization: z.unknown().optional(),
  metadata: z.unknown().optional(),
});

const refundData = z.object({
  id: z.union([z.number(), z.string()]),
  // An object with the reference on Paystack; older answers give only the numeric id.
  transaction: z.unknown().optional(),
  amount: minorUnits,
  status: z.string(),
  merchant_note: z.string().nullish(),
});

const TRANSACTION_STATUSES: Record<string, TransactionStatus> = {
  success: 'success',
  failed: 'failed',
  abandoned: 'abandoned',
  // "reversed" is a paid transaction refunded in full: the charge did happen, and callers record
  // refunds on their own; reporting it as failed would invite charging the customer again.
  reversed: 'success',
};

const REFUND_STATUSES: Record<string, ProviderRefund['status']> = { processed: 'processed', failed: 'failed' };

/**
 * The Paystack HTTP protocol (https://paystack.com/docs/api/) for the platform's PaymentProvider.
 * Live mode points it at api.paystack.co, test mode at the project's sandbox provider.
 */
export class PaystackClient implements PaymentProvider {
  private readonly http: ProviderHttp;
  private readonly series: ReturnType<typeof boundSeries>;

  constructor(options: PaystackClientOptions) {
    this.http = new ProviderHttp(options);
    this.series = boundSeries(options.metricsName ?? 'paystack');
  }

  /** Closes the kept-alive connections (at shutdown). */
  close(): Promise<void> {
    return this.http.close();
  }

  /** The provider's latency as measured on this client's calls (the configured one before any). */
  get latencyMs(): number {
    return this.http.latency.ms;
  }

  async createCustomer(input: { email: string; name?: string }): Promise<ProviderCustomer> {
    const [firstName, ...rest] = (input.name ?? '').trim().split(/\s+/).filter(Boolean);
    const data = await this.call('create_customer', 'POST', '/customer', customerData, {
      email: input.email,
      ...(firstName ? { first_name: firstName } : {}),
      ...(rest.length ? { last_name: rest.join(' ') } : {}),
    });
    return { customerCode: data.customer_code, email: data.email };
  }

  async initializeTransaction(input: InitializeTransactionInput): Promise<InitializedTransaction> {
    const data = await this.call('initialize_transaction', 'POST', '/transaction/initialize', initializeData, {
      email: input.email,
      amount: positiveMinorUnits(input.amount),
      currency: input.currency,
      reference: input.reference,
      callback_url: input.callbackUrl,
      metadata: input.metadata ?? {},
    });
    return { authorizationUrl: data.authorization_url, accessCode: data.access_code, reference: data.reference };
  }

  async verifyTransaction(reference: string): Promise<VerifiedTransaction | null> {
    try {
      const data = await this.call(
        'verify_transaction',
        'GET',
        `/transaction/verify/${encodeURIComponent(reference)}`,
        transactionData,
      );
      return toVerifiedTransaction(data);
    } catch (err) {
      // Paystack answers an unknown reference with 400 or 404 "Transaction reference not found".
      if (err instanceof PaymentProviderError && isUnknownReference(err)) return null;
      throw err;
    }
  }

  async chargeAuthorization(input: ChargeAuthorizationInput): Promise<VerifiedTransaction> {
    const data = await this.call('charge_authorization', 'POST', '/transaction/charge_authorization', transactionData, {
      authorization_code: input.authorizationCode,
      email: input.email,
      amount: positiveMinorUnits(input.amount),
      currency: input.currency,
      reference: input.reference,
      metadata: input.metadata ?? {},
    });
    return toVerifiedTransaction(data);
  }

  async refund(input: {
    transactionReference: string;
    amount?: number;
    merchantNote?: string;
  }): Promise<ProviderRefund> {
    const data = await this.call('refund', 'POST', '/refund', refundData, {
      transaction: input.transactionReference,
      ...(input.amount === undefined ? {} : { amount: positiveMinorUnits(input.amount) }),
      ...(input.merchantNote === undefined ? {} : { merchant_note: input.merchantNote }),
    });
    return toProviderRefund(data, input.transactionReference);
  }

  async listRefunds(transactionReference: string): Promise<ProviderRefund[]> {
    const query = new URLSearchParams({ transaction: transactionReference });
    const data = await this.call('list_refunds', 'GET', `/refund?${query.toString()}`, z.array(refundData));
    return data.map((refund) => toProviderRefund(refund, transactionReference));
  }

  /**
   * Sends a request and reads `data` out of Paystack's `{status, message, data}` envelope, timed
   * and counted by operation and outcome (docs/deployment.md, "Metrics").
   */
  private async call<S extends z.ZodType>(
    operation: Operation,
    method: 'GET' | 'POST',
    path: string,
    dataSchema: S,
    body?: unknown,
  ): Promise<z.infer<S>> {
    const series = this.series[operation];
    const started = performance.now();
    try {
      const data = await this.send(method, path, dataSchema, body);
      series.duration.success.observe((performance.now() - started) / 1000);
      return data;
    } catch (err) {
      const outcome = outcomeOf(err);
      series.duration[outcome].observe((performance.now() - started) / 1000);
      series.errors[outcome].inc();
      throw err;
    }
  }

  private async send<S extends z.ZodType>(
    method: 'GET' | 'POST',
    path: string,
    dataSchema: S,
    body?: unknown,
  ): Promise<z.infer<S>> {
    const json = await this.http.request(method, path, body);
    const envelope = json as { status?: unknown; message?: unknown; data?: unknown };
    if (envelope.status === false) {
      const message = typeof envelope.message === 'string' ? envelope.message : 'Payment provider refused the request';
      throw new PaymentProviderError(message, 200, false);
    }
    const parsed = dataSchema.safeParse(envelope.data);
    if (!parsed.success) {
      // An answer we cannot map leaves the outcome unknown; verifying the reference settles it.
      throw new PaymentProviderError(
        `Payment provider's answer to ${method} ${path} has an unexpected shape`,
        200,
        true,
      );
    }
    return parsed.data;
  }
}

function toVerifiedTransaction(data: z.infer<typeof transactionData>): VerifiedTransaction {
  const paidAt = data.paid_at ?? data.paidAt;
  return {
    reference: data.reference,
    status: TRANSACTION_STATUSES[data.status] ?? 'pending',
    amount: data.amount,
    currency: data.currency,
    gatewayResponse: data.gateway_response ?? '',
    paidAt: paidAt ? new Date(paidAt) : null,
    customer: toCustomer(data.customer),
    authorization: toAuthorization(data.authorization),
    metadata: toMetadata(data.metadata),
  };
}

function toProviderRefund(data: z.infer<typeof refundData>, transactionReference: string): ProviderRefund {
  const transaction = data.transaction as { reference?: unknown } | null;
  return {
    id: String(data.id),
    transactionReference: typeof transaction?.reference === 'string' ? transaction.reference : transactionReference,
    amount: data.amount,
    status: REFUND_STATUSES[data.status] ?? 'pending',
    merchantNote: data.merchant_note ?? null,
  };
}

function toCustomer(raw: unknown): ProviderCustomer | null {
  const parsed = customerData.safeParse(raw);
  return parsed.success ? { customerCode: parsed.data.customer_code, email: parsed.data.email } : null;
}

function toAuthorization(raw: unknown): ProviderAuthorization | null {
  const parsed = authorizationData.safeParse(raw);
  if (!parsed.success) return null;
  const a = parsed.data;
  return {
    authorizationCode: a.authorization_code,
    reusable: a.reusable,
    last4: a.last4 ?? '',
    brand: a.brand ?? '',
    expMonth: a.exp_month == null ? '' : String(a.exp_month),
    expYear: a.exp_year == null ? '' : String(a.exp_year),
  };
}

/** Paystack echoes metadata as sent, but older integrations stored it as a JSON string. */
function toMetadata(raw: unknown): Record<string, unknown> {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw) as unknown;
    } catch {
      return {};
    }
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * Only Paystack's own answer counts: a bare 404 (a wrong base URL, a proxy page) must not pass for
 * "no such charge", or a caller settling an unknown outcome could believe a real charge never happened.
 */
function isUnknownReference(err: PaymentProviderError): boolean {
  return (err.httpStatus === 404 || err.httpStatus === 400) && /reference not found/i.test(err.message);
}

/** Refuses a fraction or a non-positive amount before it can reach a real provider. */
function positiveMinorUnits(amount: number): number {
  if (!Number.isSafeInteger(amount) || amount <= 0) {
    throw new PaymentProviderError(`amount must be a positive integer of minor units (got ${amount})`, null, false);
  }
  return amount;
}
