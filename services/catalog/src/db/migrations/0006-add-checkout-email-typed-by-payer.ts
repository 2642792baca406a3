import type { Migration } from '@billing/platform';

/**
 * Whether a session's e-mail was typed by the payer on the hosted page (the merchant gave none).
 * Billing then does not let the payer join an existing customer of that e-mail beyond the
 * subscription the checkout creates: its card pays only that subscription and it spends none of
 * that customer's balance (docs/api-behaviour.md §20). Sessions before this were merchant-led.
 */
export const addCheckoutEmailTypedByPayer: Migration = {
  name: '0006-add-checkout-email-typed-by-payer',
  async up({ sql }) {
    await sql(`ALTER TABLE checkout_sessions ADD COLUMN customer_email_typed_by_payer BOOLEAN NOT NULL DEFAULT false`);
  },
};
