import { queryDatabase, sharedPlatform, startPlatform, type PlatformUnderTest, type SharedPlatform } from '../src';
import { templatePrefix } from '../src/database-templates';

/** A database's schema as rows that compare: tables, columns, indexes, constraints, migrations run. */
async function schemaOf(database: string): Promise<Record<string, unknown[]>> {
  const columns = await queryDatabase(
    database,
    `SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
      WHERE table_schema = 'public' ORDER BY table_name, column_name`,
  );
  const indexes = await queryDatabase(
    database,
    `SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY tablename, indexname`,
  );
  const constraints = await queryDatabase(
    database,
    `SELECT conrelid::regclass::text AS table_name, conname, pg_get_constraintdef(oid) AS definition
       FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY 1, 2`,
  );
  const migrations = await queryDatabase(database, 'SELECT name FROM schema_migrations ORDER BY name');
  return { columns, indexes, constraints, migrations };
}

/**
 * Platforms start on copies of template databases (docs/decisions.md, "How the suite is laid
 * out"); here every service migrates an empty database from scratch, as in production, and the
 * result is the same schema as the copies'.
 */
describe('database templates', () => {
  let fresh: PlatformUnderTest;
  /** The shared platform's databases are template copies like every other platform's. */
  let copied: SharedPlatform;

  beforeAll(async () => {
    [fresh, copied] = await Promise.all([startPlatform({ freshDatabases: true }), sharedPlatform()]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([fresh?.stop(), copied?.stop()]);
  });

  const owners = [
    'identity',
    'sandbox-provider',
    'policy',
    'billing',
    'catalog',
    'notification',
    'portal',
    'analytics',
    'gateway',
  ] as const;

  it.each(owners)('%s migrated from empty has the schema of its template copy', async (service) => {
    const migrated = await schemaOf(fresh.database(service));
    expect(migrated.migrations.length).toBeGreaterThan(0);
    expect(migrated.columns.length).toBeGreaterThan(0);
    expect(await schemaOf(copied.database(service))).toEqual(migrated);
  });

  it('names the templates by a digest of the migrations, so a changed migration never reuses an old one', async () => {
    const prefix = templatePrefix();
    expect(prefix).toMatch(/^tpl_[0-9a-f]{16}$/);
    const templates = await queryDatabase<{ datname: string }>(
      'postgres',
      'SELECT datname FROM pg_database WHERE datistemplate AND datname LIKE $1 ORDER BY datname',
      [`${prefix}\\_%`],
    );
    expect(templates.map((t) => t.datname)).toEqual(
      [...owners].map((service) => `${prefix}_${service.replace(/-/g, '_')}`).sort(),
    );
  });
});
