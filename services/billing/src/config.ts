import { z } from 'zod';
import {
  baseEnvSchema,
  grpcTlsEnvSchema,
  booleanFlag,
  commaSeparatedIntegers,
  databaseEnvSchema,
  eventConsumerEnvSchema,
  grpcServerEnvSchema,
  grpcTarget,
  loadConfigOrExit,
  natsEnvSchema,
  port,
} from '@billing/platform';
import { paymentsEnvSchema } from '@billing/payments';

const billingEnvSchema = baseEnvSchema
  .extend(grpcTlsEnvSchema.shape)
  .extend(databaseEnvSchema.shape)
  .extend(grpcServerEnvSchema.shape)
  .extend(natsEnvSchema.shape)
  .extend(eventConsumerEnvSchema.shape)
  .extend(paymentsEnvSchema.shape)
  .extend({ BILLING_GRPC_PORT: port(50053) })
  .extend({
    /** How often the renewal and dunning scheduler looks for due work. */
    RENEWAL_POLL_MS: z.coerce.number().int().min(10).default(1000),
    /** Retries of a failed invoice charge, in days after the first failure (docs/api-behaviour.md §8). */
    DUNNING_RETRY_DAYS: commaSeparatedIntegers().default([1, 3, 5]),
    /** A PENDING charge older than this (real time) is settled by verifying its reference. */
    PAYMENT_SETTLE_AFTER_MS: z.coerce.number().int().min(0).default(30000),
    /** The policy service, asked for the refund of every cancel-now (docs/api-behaviour.md §10). */
    POLICY_GRPC_URL: grpcTarget('127.0.0.1:50054'),
    /**
     * Identity, asked for the seller of a project that has had no merchant.seller_details_updated
     * yet (docs/events-and-test-mode.md, "Internal events").
     */
    IDENTITY_GRPC_URL: grpcTarget('127.0.0.1:50051'),
    /**
     * Test-mode work of one scheduler pass or test-clock advance: subscriptions claimed at once
     * and provider calls in flight (live mode: 500 and 128). Smaller, so that a test-clock
     * backlog leaves the process to live renewals running beside it.
     */
    TEST_MODE_SCHEDULER_BATCH_SIZE: z.coerce.number().int().min(1).max(5000).default(100),
    TEST_MODE_SCHEDULER_CONCURRENCY: z.coerce.number().int().min(1).max(4096).default(16),
    /**
     * Public base address of the platform (the gateway): an invoice's `hosted_invoice_url` and
     * `invoice_pdf`, a credit note's `credit_note_pdf`, the provider's callback of a hosted "Pay".
     */
    PUBLIC_URL: z
      .url({ protocol: /^https?$/ })
      .default('http://localhost:8080')
      .transform((url) => url.replace(/\/$/, '')),
    /**
     * The keys that sign the documents' links (docs/api-behaviour.md §22), comma-separated, each
     * at least 32 characters: the first signs, every one is accepted, so a key is rotated by
     * putting the new one first and dropping the old one once its links may go.
     */
    DOCUMENT_LINKS_KEY: z
      .string()
      .transform((value) => value.split(',').map((key) => key.trim()))
      .pipe(z.array(z.string().min(32, 'every key must be at least 32 characters')).min(1)),
    /** Deadline of every gRPC call billing makes (DEADLINE_EXCEEDED, a 503 at the gateway). */
    GRPC_DEADLINE_MS: z.coerce.number().int().min(1).max(120_000).default(5000),
    /**
     * Test-only fault injection: billing SIGKILLs itself right after the provider accepted a
     * refund and before it is recorded (the crash docs/payment-recovery.md recovers from).
     * Refused in production.
     */
    BILLING_TEST_CRASH_AFTER_REFUND_SENT: booleanFlag,
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV === 'production' && env.DOCUMENT_LINKS_KEY.some((key) => key.startsWith('dev-'))) {
      ctx.addIssue({
        code: 'custom',
        message: 'is a development key (dev- prefix); set a random one in production',
        path: ['DOCUMENT_LINKS_KEY'],
      });
    }
    if (env.NODE_ENV === 'production' && env.BILLING_TEST_CRASH_AFTER_REFUND_SENT) {
      ctx.addIssue({
        code: 'custom',
        message: 'is a test-only fault injection and cannot be set in production',
        path: ['BILLING_TEST_CRASH_AFTER_REFUND_SENT'],
      });
    }
  });

export type BillingConfig = z.infer<typeof billingEnvSchema>;

export const loadBillingConfig = (): BillingConfig => loadConfigOrExit(billingEnvSchema);
