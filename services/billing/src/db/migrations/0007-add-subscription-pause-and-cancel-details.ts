import type { Migration } from '@billing/platform';

export const addSubscriptionPauseAndCancelDetails: Migration = {
  name: '0007-add-subscription-pause-and-cancel-details',
  async up({ sql }) {
    // paused_at: when the current pause began (null when not paused), for support and reporting.
    // cancellation_reason: the merchant's or customer's words on cancel, kept as given.
    await sql(`
      ALTER TABLE subscriptions
        ADD COLUMN paused_at timestamptz,
        ADD COLUMN cancellation_reason text`);
    // A first charge of POST /subscriptions whose request died before the subscription was
    // created is refunded by settlement (nothing is created for it): its own refund reason.
    await sql(`ALTER TABLE refunds DROP CONSTRAINT refunds_reason_check`);
    await sql(`
      ALTER TABLE refunds ADD CONSTRAINT refunds_reason_check
        CHECK (reason IN ('VERIFICATION', 'CANCELLATION', 'ABANDONED_CHARGE'))`);
  },
};
