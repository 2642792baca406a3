import type { Migration } from '@billing/platform';

/**
 * A card a hosted checkout saved for a payer who only typed an existing customer's e-mail pays
 * the subscription that checkout created, and nothing else of that customer's
 * (docs/api-behaviour.md §20): payment_authorizations.subscription_id (null: the customer's own
 * card, which pays their other subscriptions). Such a subscription spends none of the customer's
 * balance either: subscriptions.uses_customer_balance.
 */
export const addSubscriptionCards: Migration = {
  name: '0019-add-subscription-cards',
  async up({ sql }) {
    await sql(`ALTER TABLE payment_authorizations ADD COLUMN subscription_id UUID`);
    await sql(`ALTER TABLE subscriptions ADD COLUMN uses_customer_balance BOOLEAN NOT NULL DEFAULT true`);
  },
};
