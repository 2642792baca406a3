import type { Sequelize } from 'sequelize-typescript';
import type { Clock, Logger, ProjectClocks, PromiseClient } from '@billing/platform';
import type { PaymentProvider, SandboxControlsClient } from '@billing/payments';
import type { identityV1, policyV1 } from '@billing/proto';
import type { DocumentLinks } from './domain/document-links';
import type { AnalyticsEventRepository } from './db/repositories/analytics-event.repository';
import type { CardUpdateRepository } from './db/repositories/card-update.repository';
import type { HostedInvoicePaymentRepository } from './db/repositories/hosted-invoice-payment.repository';
import type { CreditNoteRepository } from './db/repositories/credit-note.repository';
import type { CustomerBalanceRepository } from './db/repositories/customer-balance.repository';
import type { CustomerRepository } from './db/repositories/customer.repository';
import type { DueWorkRepository } from './db/repositories/due-work.repository';
import type { IdempotencyKeyRepository } from './db/repositories/idempotency-key.repository';
import type { InvoicePartyRepository } from './db/repositories/invoice-party.repository';
import type { InvoiceRepository } from './db/repositories/invoice.repository';
import type { PaymentAuthorizationRepository } from './db/repositories/payment-authorization.repository';
import type { PaymentRepository } from './db/repositories/payment.repository';
import type { RefundRepository } from './db/repositories/refund.repository';
import type { SubscriptionPlanRepository } from './db/repositories/subscription-plan.repository';
import type { SubscriptionRepository } from './db/repositories/subscription.repository';
import type { TaxRateRepository } from './db/repositories/tax-rate.repository';
import type { UsageRecordRepository } from './db/repositories/usage-record.repository';

/** What billing's use cases depend on; built once in server.ts. */
export interface BillingDeps {
  sequelize: Sequelize;
  customers: CustomerRepository;
  /** Customer balances and their ledger: the one way a balance changes (docs/api-behaviour.md §20). */
  balances: CustomerBalanceRepository;
  authorizations: PaymentAuthorizationRepository;
  subscriptions: SubscriptionRepository;
  /** The plans each subscription has had (what prices its usage, docs/api-behaviour.md §18). */
  subscriptionPlans: SubscriptionPlanRepository;
  invoices: InvoiceRepository;
  /** Billing's copy of each project's seller, and the buyers: what invoices keep (docs/api-behaviour.md §22). */
  invoiceParties: InvoicePartyRepository;
  /** Tax rates (docs/api-behaviour.md §21). */
  taxRates: TaxRateRepository;
  /** The scheduler's due work: counted, and claimed FOR UPDATE SKIP LOCKED. */
  dueWork: DueWorkRepository;
  payments: PaymentRepository;
  refunds: RefundRepository;
  /** Credit notes of paid invoices (docs/api-behaviour.md §23). */
  creditNotes: CreditNoteRepository;
  /** The payments the hosted invoice page's "Pay" started (docs/api-behaviour.md §22). */
  hostedInvoicePayments: HostedInvoicePaymentRepository;
  /** The card updates the customer portal's "Update card" started (docs/api-behaviour.md §20). */
  cardUpdates: CardUpdateRepository;
  /** The links of invoices' hosted pages and PDFs and of credit notes' PDFs (§22). */
  documentLinks: DocumentLinks;
  usage: UsageRecordRepository;
  /** The recorded events that carry analytics facts, for rebuilds (docs/api-behaviour.md §25). */
  analyticsEvents: AnalyticsEventRepository;
  /** Idempotency-Keys of money-moving requests, stored with the change each made. */
  idempotencyKeys: IdempotencyKeyRepository;
  /** The policy service: which cancellation policy applies to a cancel-now, and its refund. */
  policy: Pick<PromiseClient<policyV1.PolicyServiceClient>, 'quoteRefund'>;
  /** Identity: the seller of a project billing keeps no copy of yet (invoicing/invoice-parties.ts). */
  identity: Pick<PromiseClient<identityV1.IdentityServiceClient>, 'getProjectSeller'>;
  /** The payment provider of a mode: the sandbox in test mode, Paystack in live mode. */
  providerFor(livemode: boolean): PaymentProvider;
  /** Real time; use `clocks.now(scope)` for anything that belongs to a project. */
  clock: Clock;
  /** Per-project time: real in live mode, test clock in test mode. */
  clocks: ProjectClocks;
  logger: Logger;
  /** Days after an invoice's first failed charge on which it is retried (DUNNING_RETRY_DAYS). */
  dunningRetryDays?: number[];
  /** The sandbox provider's controls (test helpers); unset where there is no sandbox. */
  sandboxControls?: SandboxControlsClient;
  /** A PENDING invoice charge older than this (real ms) is settled by verifying its reference. */
  paymentSettleAfterMs?: number;
  /**
   * What one scheduler pass of test-mode work may take at once (TEST_MODE_SCHEDULER_BATCH_SIZE,
   * TEST_MODE_SCHEDULER_CONCURRENCY); unset: the same as live mode.
   */
  testModeBudget?: { batchSize: number; concurrency: number };
  /** Live-mode provider calls in flight (PROVIDER_CALLS_IN_FLIGHT); unset: 128. */
  providerCallsInFlight?: number;
  /**
   * Test-only fault injection (BILLING_TEST_CRASH_AFTER_REFUND_SENT): runs right after the
   * provider accepted a refund, before billing records it. Unset in every real deployment.
   */
  afterRefundSent?: () => void;
}
