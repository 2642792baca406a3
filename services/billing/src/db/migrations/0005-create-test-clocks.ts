import type { Migration } from '@billing/platform';

export const createTestClocks: Migration = {
  name: '0005-create-test-clocks',
  async up({ sql }) {
    // A project's test-mode time = real time + offset_ms; the offset only grows (contract 16.1).
    await sql(`
      CREATE TABLE test_clocks (
        project_id uuid PRIMARY KEY,
        offset_ms bigint NOT NULL DEFAULT 0 CHECK (offset_ms >= 0),
        updated_at timestamptz NOT NULL
      )`);
  },
};
