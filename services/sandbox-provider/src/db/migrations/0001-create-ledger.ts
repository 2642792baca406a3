import type { Migration } from '@billing/platform';

/** The sandbox's ledger: what a real provider would know about customers, cards and money moved. */
export const createLedger: Migration = {
  name: '0001-create-ledger',
  async up({ sql }) {
    await sql(`
      CREATE TABLE customers (
        id bigserial PRIMARY KEY,
        customer_code text NOT NULL UNIQUE,
        email text NOT NULL,
        first_name text,
        last_name text,
        created_at timestamptz NOT NULL
      )`);
    // One customer per email, as at Paystack; emails compare case-insensitively.
    await sql(`CREATE UNIQUE INDEX customers_email ON customers (lower(email))`);

    await sql(`
      CREATE TABLE authorizations (
        id bigserial PRIMARY KEY,
        authorization_code text NOT NULL UNIQUE,
        email text NOT NULL,
        customer_code text NOT NULL REFERENCES customers (customer_code),
        last4 char(4) NOT NULL,
        brand text NOT NULL,
        exp_month text NOT NULL,
        exp_year text NOT NULL,
        behavior text NOT NULL CHECK (behavior IN ('succeed', 'decline', 'insufficient_funds')),
        created_at timestamptz NOT NULL
      )`);

    await sql(`
      CREATE TABLE transactions (
        id bigserial PRIMARY KEY,
        reference text NOT NULL UNIQUE,
        amount bigint NOT NULL CHECK (amount > 0),
        currency char(3) NOT NULL,
        email text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'success', 'failed', 'abandoned')),
        gateway_response text,
        access_code text UNIQUE,
        callback_url text,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        authorization_code text REFERENCES authorizations (authorization_code),
        channel text NOT NULL CHECK (channel IN ('card', 'authorization')),
        paid_at timestamptz,
        created_at timestamptz NOT NULL
      )`);
    await sql(`CREATE INDEX transactions_email ON transactions (lower(email), created_at)`);

    await sql(`
      CREATE TABLE refunds (
        id bigserial PRIMARY KEY,
        transaction_reference text NOT NULL REFERENCES transactions (reference),
        amount bigint NOT NULL CHECK (amount > 0),
        status text NOT NULL CHECK (status IN ('pending', 'processed', 'failed')),
        created_at timestamptz NOT NULL
      )`);
    await sql(`CREATE INDEX refunds_transaction ON refunds (transaction_reference)`);
  },
};
