import type { Migration } from '@billing/platform';

/**
 * The merchant dashboard's sessions (docs/decisions.md, "Dashboard sessions"). The cookie's token
 * is kept only as its SHA-256 (`token_hash`); `csrf_token` is the synchronizer token of the
 * session's forms; `project_id` and `livemode` are what the project and mode switches chose.
 * `revealed_secret` holds, until the next page shows it once, a new API key's secret encrypted
 * under a key derived from the cookie's token, which only the browser has.
 */
export const createDashboardSessions: Migration = {
  name: '0002-create-dashboard-sessions',
  async up({ sql }) {
    await sql(`
      CREATE TABLE dashboard_sessions (
        id UUID PRIMARY KEY,
        token_hash TEXT NOT NULL UNIQUE,
        merchant_id UUID NOT NULL,
        csrf_token TEXT NOT NULL,
        project_id UUID NOT NULL,
        livemode BOOLEAN NOT NULL,
        revealed_secret TEXT,
        created_at TIMESTAMPTZ NOT NULL,
        last_seen_at TIMESTAMPTZ NOT NULL,
        expires_at TIMESTAMPTZ NOT NULL
      )`);
    await sql(`CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions (expires_at)`);
    await sql(`CREATE INDEX dashboard_sessions_last_seen ON dashboard_sessions (last_seen_at)`);
  },
};
