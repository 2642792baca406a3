import type { Migration } from '@billing/platform';

/**
 * A balance has a currency (docs/api-behaviour.md §20): customers.balance_currency, null until
 * the first change, and each ledger row's currency. Balances that already moved take the
 * currency of the customer's first subscription (the only currency their invoices could have
 * used), else NGN, the platform's default.
 */
export const addBalanceCurrency: Migration = {
  name: '0017-add-balance-currency',
  async up({ sql }) {
    await sql(`ALTER TABLE customers ADD COLUMN balance_currency CHAR(3)`);
    await sql(`ALTER TABLE customer_balance_transactions ADD COLUMN currency CHAR(3)`);
    await sql(`
      UPDATE customers c SET balance_currency = COALESCE(
        (SELECT s.currency FROM subscriptions s WHERE s.customer_id = c.id ORDER BY s.created_at LIMIT 1), 'NGN')
      WHERE EXISTS (SELECT 1 FROM customer_balance_transactions t WHERE t.customer_id = c.id)`);
    await sql(`
      UPDATE customer_balance_transactions t SET currency = c.balance_currency
      FROM customers c WHERE c.id = t.customer_id`);
    await sql(`ALTER TABLE customer_balance_transactions ALTER COLUMN currency SET NOT NULL`);
  },
};
