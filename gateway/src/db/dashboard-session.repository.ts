import { QueryTypes } from 'sequelize';
import type { Sequelize } from 'sequelize-typescript';

/** A dashboard session as the pages use it: whose it is, its CSRF token, the project and mode chosen. */
export interface DashboardSessionRecord {
  id: string;
  merchantId: string;
  csrfToken: string;
  projectId: string;
  livemode: boolean;
  createdAt: Date;
}

export interface NewDashboardSession {
  id: string;
  tokenHash: string;
  merchantId: string;
  csrfToken: string;
  projectId: string;
  livemode: boolean;
  now: Date;
  expiresAt: Date;
}

interface SessionRow {
  id: string;
  merchant_id: string;
  csrf_token: string;
  project_id: string;
  livemode: boolean;
  created_at: Date;
}

const toRecord = (row: SessionRow): DashboardSessionRecord => ({
  id: row.id,
  merchantId: row.merchant_id,
  csrfToken: row.csrf_token,
  projectId: row.project_id,
  livemode: row.livemode,
  createdAt: row.created_at,
});

const COLUMNS = 'id, merchant_id, csrf_token, project_id, livemode, created_at';

/** The merchant dashboard's sessions, in the gateway's database (shared by every replica). */
export class DashboardSessionRepository {
  constructor(private readonly sequelize: Sequelize) {}

  async create(session: NewDashboardSession): Promise<void> {
    await this.sequelize.query(
      `INSERT INTO dashboard_sessions (id, token_hash, merchant_id, csrf_token, project_id, livemode,
         created_at, last_seen_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8)`,
      {
        bind: [
          session.id,
          session.tokenHash,
          session.merchantId,
          session.csrfToken,
          session.projectId,
          session.livemode,
          session.now,
          session.expiresAt,
        ],
      },
    );
  }

  /**
   * The session of a cookie's token hash if it is alive (used since `aliveSince`, before its
   * absolute expiry), kept alive by this request in the same statement; otherwise nothing.
   */
  async touch(tokenHash: string, aliveSince: Date, now: Date): Promise<DashboardSessionRecord | undefined> {
    const rows = await this.sequelize.query<SessionRow>(
      `UPDATE dashboard_sessions SET last_seen_at = $3
        WHERE token_hash = $1 AND last_seen_at > $2 AND expires_at > $3
        RETURNING ${COLUMNS}`,
      { bind: [tokenHash, aliveSince, now], type: QueryTypes.SELECT },
    );
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  async choose(id: string, projectId: string, livemode: boolean): Promise<void> {
    await this.sequelize.query(`UPDATE dashboard_sessions SET project_id = $2, livemode = $3 WHERE id = $1`, {
      bind: [id, projectId, livemode],
    });
  }

  /** Keeps a secret for the next page to show once (sealed by the caller). */
  async keepSecret(id: string, sealed: string): Promise<void> {
    await this.sequelize.query(`UPDATE dashboard_sessions SET revealed_secret = $2 WHERE id = $1`, {
      bind: [id, sealed],
    });
  }

  /** The kept secret, removed in the same statement: whichever request reads it, it is read once. */
  async takeSecret(id: string): Promise<string | undefined> {
    const rows = await this.sequelize.query<{ revealed_secret: string | null }>(
      `UPDATE dashboard_sessions s SET revealed_secret = NULL
         FROM (SELECT id, revealed_secret FROM dashboard_sessions WHERE id = $1 FOR UPDATE) old
        WHERE s.id = old.id AND old.revealed_secret IS NOT NULL
        RETURNING old.revealed_secret`,
      { bind: [id], type: QueryTypes.SELECT },
    );
    return rows[0]?.revealed_secret ?? undefined;
  }

  async end(id: string): Promise<void> {
    await this.sequelize.query(`DELETE FROM dashboard_sessions WHERE id = $1`, { bind: [id] });
  }

  /** Sessions that can never be used again (idle since before `aliveSince`, or past their expiry), a batch at a time. */
  async purgeEnded(aliveSince: Date, now: Date, batch: number): Promise<number> {
    const rows = await this.sequelize.query<{ id: string }>(
      `DELETE FROM dashboard_sessions WHERE id IN (
         SELECT id FROM dashboard_sessions WHERE expires_at <= $2 OR last_seen_at <= $1 LIMIT $3)
       RETURNING id`,
      { bind: [aliveSince, now, batch], type: QueryTypes.SELECT },
    );
    return rows.length;
  }
}
