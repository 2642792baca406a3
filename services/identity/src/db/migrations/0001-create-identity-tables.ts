import type { Migration } from '@billing/platform';

export const createIdentityTables: Migration = {
  name: '0001-create-identity-tables',
  async up({ sql }) {
    await sql(`
      CREATE TABLE merchants (
        id uuid PRIMARY KEY,
        email text NOT NULL,
        business_name text NOT NULL,
        password_hash text NOT NULL,
        is_active boolean NOT NULL DEFAULT true,
        is_verified boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    // Case-insensitive uniqueness: the database, not a pre-check, decides a registration race.
    await sql(`CREATE UNIQUE INDEX merchants_email_lower ON merchants (lower(email))`);
    await sql(`
      CREATE TABLE projects (
        id uuid PRIMARY KEY,
        merchant_id uuid NOT NULL REFERENCES merchants (id),
        name text NOT NULL,
        created_at timestamptz NOT NULL
      )`);
    await sql(`CREATE INDEX projects_merchant ON projects (merchant_id, created_at)`);
    await sql(`
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY,
        project_id uuid NOT NULL REFERENCES projects (id),
        merchant_id uuid NOT NULL REFERENCES merchants (id),
        name text NOT NULL,
        key_hash char(64) NOT NULL UNIQUE,
        key_prefix text NOT NULL,
        last4 char(4) NOT NULL,
        is_live boolean NOT NULL,
        is_active boolean NOT NULL DEFAULT true,
        revoked_at timestamptz,
        last_used_at timestamptz,
        created_at timestamptz NOT NULL
      )`);
    await sql(`CREATE INDEX api_keys_merchant_project ON api_keys (merchant_id, project_id, created_at)`);
  },
};
