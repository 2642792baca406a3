import type { Migration } from '@billing/platform';

export const createBillingSchedule: Migration = {
  name: '0006-create-billing-schedule',
  async up({ sql }) {
    // subscription.trial_will_end is sent once (docs/api-behaviour.md §12): the time it went out.
    await sql(`ALTER TABLE subscriptions ADD COLUMN trial_will_end_notified_at timestamptz`);
    // Due period ends are found by this index; the scheduler claims them FOR UPDATE SKIP LOCKED.
    await sql(
      `CREATE INDEX subscriptions_due ON subscriptions (current_period_end)
       WHERE status IN ('ACTIVE', 'TRIALING', 'PAST_DUE', 'PAUSED')`,
    );
    // Dunning retries are counted from the first failed charge of the invoice (docs/api-behaviour.md §8).
    await sql(`ALTER TABLE invoices ADD COLUMN first_failed_at timestamptz`);
    await sql(`CREATE INDEX invoices_due ON invoices (next_payment_attempt) WHERE status = 'OPEN'`);
    // Real time the provider call of a PENDING payment started: settlement waits until any
    // call still in flight must have timed out before it verifies the reference.
    await sql(`ALTER TABLE payments ADD COLUMN charge_started_at timestamptz`);
    await sql(`CREATE INDEX payments_pending ON payments (charge_started_at) WHERE status = 'PENDING'`);
  },
};
