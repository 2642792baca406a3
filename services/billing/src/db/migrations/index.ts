import { outboxMigrations, type Migration } from '@billing/platform';
import { createCustomers } from './0001-create-customers';
import { createSubscriptions } from './0002-create-subscriptions';
import { createInvoices } from './0003-create-invoices';
import { createPaymentsAndRefunds } from './0004-create-payments-and-refunds';
import { createTestClocks } from './0005-create-test-clocks';

/** Every migration of the billing database, in order. Append; never edit a shipped one. */
export const billingMigrations: Migration[] = [
  ...outboxMigrations,
  createCustomers,
  createSubscriptions,
  createInvoices,
  createPaymentsAndRefunds,
  createTestClocks,
];
