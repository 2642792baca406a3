import { QueryTypes, type Transaction } from 'sequelize';
import type { Sequelize } from 'sequelize-typescript';
import type { Clock } from './clock';
import type { Migration } from './db';
import { DomainError } from './errors';

/**
 * The test clocks table. Its name keeps billing's original migration name, under which billing
 * databases already recorded it; every service that reads project time includes it.
 */
export const testClocksMigration: Migration = {
  name: '0005-create-test-clocks',
  async up({ sql }) {
    // A project's test-mode time = real time + offset_ms; the offset only grows (docs/api-behaviour.md §16.1).
    await sql(`
      CREATE TABLE test_clocks (
        project_id uuid PRIMARY KEY,
        offset_ms bigint NOT NULL DEFAULT 0 CHECK (offset_ms >= 0),
        updated_at timestamptz NOT NULL
      )`);
  },
};

/**
 * How far one `POST /test-clock/advance` may move a test clock, in calendar years of its own
 * time. A bound on the test-mode work one call can make due (docs/events-and-test-mode.md).
 */
export const MAX_TEST_CLOCK_STEP_YEARS = 2;

/**
 * "Now" for a project and mode (docs/api-behaviour.md §13 and §16.1): live mode is real time; test
 * mode is real time plus the project's test-clock offset, which only grows. Every billing rule
 * that reads the time asks this, never Date.now().
 */
export class ProjectClocks {
  constructor(
    private readonly sequelize: Sequelize,
    private readonly base: Clock,
  ) {}

  /** The real time, for work that is not a project's (webhook delivery, housekeeping). */
  realNow(): Date {
    return this.base.now();
  }

  async now(scope: { projectId: string; livemode: boolean }, transaction?: Transaction): Promise<Date> {
    const real = this.base.now();
    if (scope.livemode) return real;
    return new Date(real.getTime() + (await this.offsetMs(scope.projectId, transaction)));
  }

  async offsetMs(projectId: string, transaction?: Transaction): Promise<number> {
    const rows = await this.sequelize.query<{ offset_ms: string }>(
      'SELECT offset_ms FROM test_clocks WHERE project_id = $1',
      { bind: [projectId], type: QueryTypes.SELECT, transaction },
    );
    return rows.length ? Number(rows[0].offset_ms) : 0;
  }

  /**
   * Moves a project's test clock to `to` (never backwards: 400). Returns the new test time.
   * The row lock serializes concurrent advances of one project. Billing owns the test clock
   * and moves it with `limitStep` (at most MAX_TEST_CLOCK_STEP_YEARS from its time now: 400);
   * catalog and policy keep copies that the gateway moves right after billing's, to billing's
   * time, so that checkout sessions follow the same time. The copies take no limit: they follow
   * billing's clock wherever it is, even after a missed move.
   */
  async advance(
    projectId: string,
    to: Date,
    transaction: Transaction,
    options: { limitStep?: boolean } = {},
  ): Promise<Date> {
    const real = this.base.now();
    const current = await this.sequelize.query<{ offset_ms: string }>(
      'SELECT offset_ms FROM test_clocks WHERE project_id = $1 FOR UPDATE',
      { bind: [projectId], type: QueryTypes.SELECT, transaction },
    );
    const currentOffset = current.length ? Number(current[0].offset_ms) : 0;
    const offset = to.getTime() - real.getTime();
    if (offset < currentOffset) {
      throw new DomainError('failed_precondition', 'A test clock only moves forward');
    }
    if (options.limitStep) {
      const latest = new Date(real.getTime() + currentOffset);
      latest.setUTCFullYear(latest.getUTCFullYear() + MAX_TEST_CLOCK_STEP_YEARS);
      if (to.getTime() > latest.getTime()) {
        throw new DomainError(
          'failed_precondition',
          `A test clock moves at most ${MAX_TEST_CLOCK_STEP_YEARS} years per call: ` +
            `to ${latest.toISOString()} at the latest now; advance in several steps`,
        );
      }
    }
    await this.sequelize.query(
      `INSERT INTO test_clocks (project_id, offset_ms, updated_at) VALUES ($1, $2, $3)
       ON CONFLICT (project_id) DO UPDATE SET offset_ms = EXCLUDED.offset_ms, updated_at = EXCLUDED.updated_at`,
      { bind: [projectId, offset, real], transaction },
    );
    return new Date(real.getTime() + offset);
  }
}
