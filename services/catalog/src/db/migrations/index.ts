import { outboxMigrations, testClocksMigration, type Migration } from '@billing/platform';
import { createPlans } from './0001-create-plans';
import { createCheckoutSessions } from './0002-create-checkout-sessions';
import { createCheckoutPayments } from './0003-create-checkout-payments';
import { createCoupons } from './0004-create-coupons';
import { addCheckoutSessionCoupons } from './0005-add-checkout-session-coupons';
import { addCheckoutEmailTypedByPayer } from './0006-add-checkout-email-typed-by-payer';
import { addTaxRates } from './0007-add-tax-rates';
import { addCheckoutSellerName } from './0008-add-checkout-seller-name';

/** Every migration of the catalog database, in order. Append; never edit a shipped one. */
export const catalogMigrations: Migration[] = [
  ...outboxMigrations,
  createPlans,
  createCheckoutSessions,
  testClocksMigration,
  createCheckoutPayments,
  createCoupons,
  addCheckoutSessionCoupons,
  addCheckoutEmailTypedByPayer,
  addTaxRates,
  addCheckoutSellerName,
];
