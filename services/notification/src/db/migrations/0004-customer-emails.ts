import type { Migration } from '@billing/platform';

/**
 * Customer emails (docs/api-behaviour.md §24): the settings of each project and mode, and one
 * row per event and email type, written by the consumer in the statement that accepts the event
 * (so a redelivered event adds nothing: UNIQUE (event_id, type)) and sent by the email loop, apart
 * from the webhook deliveries (docs/decisions.md, "Customer emails: a row per event, sent once").
 */
export const customerEmails: Migration = {
  name: '0004-customer-emails',
  async up({ sql }) {
    await sql(`
      CREATE TABLE email_settings (
        project_id uuid NOT NULL,
        livemode boolean NOT NULL,
        enabled boolean NOT NULL,
        from_name text,
        reply_to text,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (project_id, livemode)
      )`);
    // to_address, subject, locale, html and text_body are written once, when the loop first
    // reads what the email needs from billing; every later attempt sends exactly those bytes.
    await sql(`
      CREATE TABLE customer_emails (
        id uuid PRIMARY KEY,
        event_id uuid NOT NULL,
        type text NOT NULL,
        project_id uuid NOT NULL,
        livemode boolean NOT NULL,
        customer_id uuid NOT NULL,
        event_data jsonb NOT NULL,
        from_name text,
        reply_to text,
        to_address text,
        subject text,
        locale text,
        html text,
        text_body text,
        status text NOT NULL CHECK (status IN ('QUEUED', 'SENT', 'FAILED')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL,
        lease_until timestamptz,
        last_error text,
        created_at timestamptz NOT NULL,
        sent_at timestamptz,
        UNIQUE (event_id, type)
      )`);
    await sql(`CREATE INDEX customer_emails_due ON customer_emails (next_attempt_at) WHERE status = 'QUEUED'`);
    await sql(
      `CREATE INDEX customer_emails_of_customer
         ON customer_emails (project_id, livemode, customer_id, created_at DESC, id DESC)`,
    );
  },
};
