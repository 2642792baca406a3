import {
  outboxMigrations,
  parkedEventRetentionIndexMigration,
  parkedEventsMigration,
  testClocksMigration,
  type Migration,
} from '@billing/platform';
import { createCustomers } from './0001-create-customers';
import { createSubscriptions } from './0002-create-subscriptions';
import { createInvoices } from './0003-create-invoices';
import { createPaymentsAndRefunds } from './0004-create-payments-and-refunds';
import { createBillingSchedule } from './0006-create-billing-schedule';
import { addSubscriptionPauseAndCancelDetails } from './0007-add-subscription-pause-and-cancel-details';
import { createUsageRecords } from './0008-create-usage-records';
import { addRefundPolicy } from './0009-add-refund-policy';
import { indexDueWorkByMode } from './0010-index-due-work-by-mode';
import { createIdempotencyKeys } from './0011-create-idempotency-keys';
import { addCheckoutPaymentsAndRefundAttempts } from './0012-add-checkout-payments-and-refund-attempts';
import { addCustomerBalance } from './0013-add-customer-balance';
import { addSubscriptionDiscounts } from './0014-add-subscription-discounts';
import { addPlanChanges } from './0015-add-plan-changes';
import { indexOpenInvoicesOfSubscription } from './0016-index-open-invoices-of-subscription';
import { addBalanceCurrency } from './0017-add-balance-currency';
import { addBillingParking } from './0018-add-billing-parking';
import { addSubscriptionCards } from './0019-add-subscription-cards';
import { indexFailedFirstCharges } from './0020-index-failed-first-charges';
import { addTaxes } from './0021-add-taxes';
import { createCreditNotes } from './0030-create-credit-notes';
import { addPlanTaxRates } from './0040-add-plan-tax-rates';
import { addHostedInvoicePayments } from './0060-add-hosted-invoice-payments';
import { addCardUpdates } from './0070-add-card-updates';
import { addInvoiceParties } from './0050-add-invoice-parties';
import { indexAnalyticsEvents } from './0080-index-analytics-events';
import { indexOutboxRetention } from './0090-index-outbox-retention';

/** Every migration of the billing database, in order. Append; never edit a shipped one. */
export const billingMigrations: Migration[] = [
  ...outboxMigrations,
  createCustomers,
  createSubscriptions,
  createInvoices,
  createPaymentsAndRefunds,
  testClocksMigration,
  createBillingSchedule,
  addSubscriptionPauseAndCancelDetails,
  createUsageRecords,
  addRefundPolicy,
  indexDueWorkByMode,
  createIdempotencyKeys,
  addCheckoutPaymentsAndRefundAttempts,
  addCustomerBalance,
  addSubscriptionDiscounts,
  addPlanChanges,
  indexOpenInvoicesOfSubscription,
  addBalanceCurrency,
  addBillingParking,
  addSubscriptionCards,
  indexFailedFirstCharges,
  addTaxes,
  createCreditNotes,
  addPlanTaxRates,
  // Billing consumes events since merchant.seller_details_updated (the platform's table).
  parkedEventsMigration,
  addInvoiceParties,
  addHostedInvoicePayments,
  addCardUpdates,
  indexAnalyticsEvents,
  parkedEventRetentionIndexMigration,
  indexOutboxRetention,
];
