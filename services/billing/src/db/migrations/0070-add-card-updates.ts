import type { Migration } from '@billing/platform';

/**
 * "Update card" of the customer portal (docs/api-behaviour.md §20, "Updating the card"): each
 * card update started at the provider (a verification charge of 1.00), recorded before the
 * provider hears of it, until billing has applied it once (UPDATED: the card became the
 * subscription's and the charge is refunded; NOT_PAID: the charge failed, was abandoned, or left
 * a card that cannot be charged again). Its payment is a VERIFICATION payment and its refund a
 * VERIFICATION refund (of no invoice), as a trial checkout's.
 */
export const addCardUpdates: Migration = {
  name: '0070-add-card-updates',
  async up({ sql }) {
    await sql(`
      CREATE TABLE card_updates (
        reference text PRIMARY KEY,
        project_id uuid NOT NULL,
        livemode boolean NOT NULL,
        customer_id uuid NOT NULL REFERENCES customers (id),
        subscription_id uuid NOT NULL REFERENCES subscriptions (id),
        amount bigint NOT NULL CHECK (amount > 0),
        currency char(3) NOT NULL,
        state text NOT NULL CHECK (state IN ('STARTED', 'UPDATED', 'NOT_PAID')),
        created_at timestamptz NOT NULL,
        -- When billing last asked the provider about it (its sweep asks the oldest first).
        checked_at timestamptz NOT NULL,
        settled_at timestamptz
      )`);
    await sql(`CREATE INDEX card_updates_started ON card_updates (checked_at) WHERE state = 'STARTED'`);
    await sql(`CREATE INDEX card_updates_subscription ON card_updates (subscription_id)`);

    // A card is kept once per customer and subscription (null: the customer's own card) instead of
    // once per customer, so that a card the customer already has can still become one
    // subscription's card (an update to a card the provider knows, same authorization code).
    await sql(
      `ALTER TABLE payment_authorizations DROP CONSTRAINT payment_authorizations_customer_id_authorization_code_key`,
    );
    await sql(`
      ALTER TABLE payment_authorizations ADD CONSTRAINT payment_authorizations_card
        UNIQUE NULLS NOT DISTINCT (customer_id, authorization_code, subscription_id)`);
  },
};
