import type { Migration } from '@billing/platform';

/**
 * The scheduler's polls find due work by range scans per mode (live rows against real time,
 * test rows against the latest test clock), so a test clock far ahead widens the test scan only.
 * Trial notices get their own index: the poll's OR becomes a BitmapOr, not a table scan. Only
 * invoices with a charge scheduled are due, so a renewal invoice whose charge is claimed as it is
 * created (next_payment_attempt NULL) and a paid one cost no entry.
 */
export const indexDueWorkByMode: Migration = {
  name: '0010-index-due-work-by-mode',
  async up({ sql }) {
    await sql(`DROP INDEX subscriptions_due`);
    await sql(
      `CREATE INDEX subscriptions_due ON subscriptions (livemode, current_period_end)
       WHERE status IN ('ACTIVE', 'TRIALING', 'PAST_DUE', 'PAUSED')`,
    );
    await sql(
      `CREATE INDEX subscriptions_trial_notice ON subscriptions (livemode, trial_end)
       WHERE status = 'TRIALING' AND trial_will_end_notified_at IS NULL`,
    );
    await sql(`DROP INDEX invoices_due`);
    await sql(
      `CREATE INDEX invoices_due ON invoices (livemode, next_payment_attempt)
       WHERE status = 'OPEN' AND next_payment_attempt IS NOT NULL`,
    );
  },
};
