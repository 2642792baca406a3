import { z } from 'zod';
import { DomainError } from '@billing/platform';
import { callsInFlightFor } from './calls-in-flight';
import type { PaymentProvider } from './payment-provider';
import { PaystackClient } from './paystack-client';
import { DEFAULT_PROVIDER_TIMEOUT_MS } from './provider-http';

/** Known to everyone, so usable only where nothing real is at stake (local development, tests). */
export const DEFAULT_SANDBOX_SECRET_KEY = 'sk_test_sandbox_local_development';

const httpUrl = z.url({ protocol: /^https?$/ });

/**
 * Variables of every process that talks to a payment provider; services extend their schema with
 * `paymentsEnvSchema.shape`. Test mode always uses the sandbox provider, live mode Paystack.
 */
export const paymentsEnvSchema = z.object({
  SANDBOX_PROVIDER_URL: httpUrl.default('http://127.0.0.1:8090'),
  /** The sandbox's API key; it also signs the sandbox's webhooks. */
  SANDBOX_SECRET_KEY: z.string().min(16).default(DEFAULT_SANDBOX_SECRET_KEY),
  PAYSTACK_BASE_URL: httpUrl.default('https://api.paystack.co'),
  /** Unset: live payments are refused with a clear error instead of failing at Paystack. */
  PAYSTACK_SECRET_KEY: z.string().min(1).optional(),
  /**
   * The most provider calls one process keeps in flight, and its kept-alive connections to the
   * provider. Within it, the scheduler keeps PROVIDER_TARGET_CALLS_PER_SECOND x the provider's
   * latency in flight (Little's law, calls-in-flight.ts; docs/configuration.md).
   */
  PROVIDER_CALLS_IN_FLIGHT: z.coerce.number().int().min(1).max(4096).default(1024),
  /** The charge rate the renewal scheduler is sized for (calls in flight = this x latency). */
  PROVIDER_TARGET_CALLS_PER_SECOND: z.coerce.number().int().min(1).max(100_000).default(1000),
  /** The provider's expected latency, used until its answers are measured (Paystack: hundreds of ms). */
  PROVIDER_LATENCY_MS: z.coerce.number().int().min(0).max(60_000).default(500),
  /** How long a provider call may take before it is given up (and its charge left to settlement). */
  PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(DEFAULT_PROVIDER_TIMEOUT_MS),
});

export type PaymentsConfig = z.infer<typeof paymentsEnvSchema>;

/**
 * The providers by mode: the sandbox for test mode, Paystack for live mode. Built once per
 * process and shared, so every call reuses the client's kept-alive connections.
 */
export class PaymentProviders {
  private sandbox?: PaystackClient;
  private live?: PaystackClient;

  constructor(private readonly config: PaymentsConfig) {}

  /** The provider for a record's mode. */
  forMode(livemode: boolean): PaymentProvider {
    if (!livemode) {
      this.sandbox ??= new PaystackClient({
        baseUrl: this.config.SANDBOX_PROVIDER_URL,
        secretKey: this.config.SANDBOX_SECRET_KEY,
        connections: this.config.PROVIDER_CALLS_IN_FLIGHT,
        expectedLatencyMs: this.config.PROVIDER_LATENCY_MS,
        timeoutMs: this.config.PROVIDER_TIMEOUT_MS,
        metricsName: 'sandbox',
      });
      return this.sandbox;
    }
    if (!this.config.PAYSTACK_SECRET_KEY) {
      throw new DomainError('failed_precondition', 'Live payments are not configured (PAYSTACK_SECRET_KEY)');
    }
    this.live ??= new PaystackClient({
      baseUrl: this.config.PAYSTACK_BASE_URL,
      secretKey: this.config.PAYSTACK_SECRET_KEY,
      connections: this.config.PROVIDER_CALLS_IN_FLIGHT,
      expectedLatencyMs: this.config.PROVIDER_LATENCY_MS,
      timeoutMs: this.config.PROVIDER_TIMEOUT_MS,
      metricsName: 'paystack',
    });
    return this.live;
  }

  /**
   * Calls to keep in flight to a mode's provider, at most `max` (a mode's budget): the target
   * rate x the latency measured on that provider's calls so far (calls-in-flight.ts).
   */
  callsInFlight(livemode: boolean, max: number): number {
    const client = livemode ? this.live : this.sandbox;
    const latencyMs = client?.latencyMs ?? this.config.PROVIDER_LATENCY_MS;
    return callsInFlightFor(this.config.PROVIDER_TARGET_CALLS_PER_SECOND, latencyMs, max);
  }

  /** Closes the clients' connections (at shutdown). */
  async close(): Promise<void> {
    await Promise.all([this.sandbox?.close(), this.live?.close()]);
  }
}

export interface WebhookSecret {
  secret: string;
  /** A webhook signed with this secret may only touch records of this mode. */
  livemode: boolean;
}

/** The secrets an inbound provider webhook may be signed with: the sandbox's, and Paystack's if set. */
export function webhookSecretsFor(config: PaymentsConfig): WebhookSecret[] {
  const secrets: WebhookSecret[] = [{ secret: config.SANDBOX_SECRET_KEY, livemode: false }];
  if (config.PAYSTACK_SECRET_KEY) secrets.push({ secret: config.PAYSTACK_SECRET_KEY, livemode: true });
  return secrets;
}
