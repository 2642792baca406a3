import { QueryTypes, type Sequelize } from 'sequelize';
import { findPage, scopeWhere, type PageRequest, type ProjectScope } from '@billing/platform';
import type { CustomerEmailType, EmailOfEvent } from '../../domain/customer-emails';
import { CustomerEmailModel } from '../models/customer-email.model';

/** What an email says, written once before its first attempt. */
export interface EmailComposition {
  to: string;
  subject: string;
  locale: string;
  html: string;
  text: string;
}

/** A claimed email with what writing and sending it takes. */
export interface ClaimedEmail {
  id: string;
  eventId: string;
  type: CustomerEmailType;
  projectId: string;
  livemode: boolean;
  customerId: string;
  eventData: Record<string, unknown>;
  fromName: string | null;
  replyTo: string | null;
  /** Null until composed. */
  composition: EmailComposition | null;
  /** Attempts made before this one. */
  attempts: number;
}

interface ClaimedRow {
  id: string;
  event_id: string;
  type: CustomerEmailType;
  project_id: string;
  livemode: boolean;
  customer_id: string;
  event_data: Record<string, unknown>;
  from_name: string | null;
  reply_to: string | null;
  to_address: string | null;
  subject: string | null;
  locale: string | null;
  html: string | null;
  text_body: string | null;
  attempts: number;
}

const claimedOf = (row: ClaimedRow): ClaimedEmail => ({
  id: row.id,
  eventId: row.event_id,
  type: row.type,
  projectId: row.project_id,
  livemode: row.livemode,
  customerId: row.customer_id,
  eventData: row.event_data,
  fromName: row.from_name,
  replyTo: row.reply_to,
  composition:
    row.subject !== null && row.to_address !== null
      ? {
          to: row.to_address,
          subject: row.subject,
          locale: row.locale ?? 'en',
          html: row.html ?? '',
          text: row.text_body ?? '',
        }
      : null,
  attempts: row.attempts,
});

/** The outcome of one attempt, as recorded. */
export type EmailAttemptRecord =
  | { id: string; outcome: 'SENT'; at: Date }
  | { id: string; outcome: 'RETRY'; error: string; nextAttemptAt: Date }
  | { id: string; outcome: 'FAILED'; error: string };

export class CustomerEmailRepository {
  constructor(private readonly sequelize: Sequelize) {}

  /**
   * One email per event and type, for the projects and modes whose settings are enabled, in one
   * statement; the settings' from_name and reply_to are kept on the email as they are now. An
   * event seen before (redelivered, duplicated) adds nothing: UNIQUE (event_id, type). Returns
   * how many it created.
   */
  async createForEvents(emails: EmailOfEvent[], now: Date): Promise<number> {
    if (emails.length === 0) return 0;
    const created = await this.sequelize.query<{ id: string }>(
      `INSERT INTO customer_emails (id, event_id, type, project_id, livemode, customer_id, event_data, from_name,
                                    reply_to, status, next_attempt_at, created_at)
       SELECT gen_random_uuid(), e.event_id, e.type, e.project_id, e.livemode, e.customer_id, e.data, s.from_name,
              s.reply_to, 'QUEUED', $7, $7
         FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::boolean[], $5::uuid[], $6::jsonb[])
              AS e(event_id, type, project_id, livemode, customer_id, data)
         JOIN email_settings s ON s.project_id = e.project_id AND s.livemode = e.livemode AND s.enabled
       ON CONFLICT (event_id, type) DO NOTHING
       RETURNING id`,
      {
        bind: [
          emails.map((e) => e.eventId),
          emails.map((e) => e.type),
          emails.map((e) => e.projectId),
          emails.map((e) => e.livemode),
          emails.map((e) => e.customerId),
          emails.map((e) => JSON.stringify(e.data)),
          now,
        ],
        type: QueryTypes.SELECT,
      },
    );
    return created.length;
  }

  /**
   * Claims due QUEUED emails with a lease (another claimer skips them until it runs out, so a
   * process that dies mid-send only delays its emails). `uncomposedOnly`: only the emails not
   * written yet (a process without SMTP writes them, it cannot send them).
   */
  async claimDue(now: Date, limit: number, leaseMs: number, uncomposedOnly: boolean): Promise<ClaimedEmail[]> {
    const rows = await this.sequelize.query<ClaimedRow>(
      `WITH due AS (
         SELECT id FROM customer_emails
          WHERE status = 'QUEUED' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until <= $1)
            AND (NOT $4 OR subject IS NULL)
          ORDER BY next_attempt_at
          LIMIT $2
          FOR UPDATE SKIP LOCKED
       )
       UPDATE customer_emails c SET lease_until = $1::timestamptz + $3 * interval '1 millisecond'
         FROM due WHERE c.id = due.id
       RETURNING c.id, c.event_id, c.type, c.project_id, c.livemode, c.customer_id, c.event_data, c.from_name,
                 c.reply_to, c.to_address, c.subject, c.locale, c.html, c.text_body, c.attempts`,
      { bind: [now, limit, leaseMs, uncomposedOnly], type: QueryTypes.SELECT },
    );
    return rows.map(claimedOf);
  }

  /** Writes what the email says; the lease is kept (the caller goes on to send it, or releases it). */
  async saveComposition(id: string, composition: EmailComposition): Promise<void> {
    await this.sequelize.query(
      `UPDATE customer_emails SET to_address = $2, subject = $3, locale = $4, html = $5, text_body = $6
        WHERE id = $1 AND subject IS NULL`,
      { bind: [id, composition.to, composition.subject, composition.locale, composition.html, composition.text] },
    );
  }

  /** Gives up a claim without an attempt: due again for any process. */
  async releaseLease(id: string): Promise<void> {
    await this.sequelize.query(`UPDATE customer_emails SET lease_until = NULL WHERE id = $1 AND status = 'QUEUED'`, {
      bind: [id],
    });
  }

  /** Records one attempt's outcome and releases the lease. */
  async recordAttempt(record: EmailAttemptRecord): Promise<void> {
    if (record.outcome === 'SENT') {
      await this.sequelize.query(
        `UPDATE customer_emails SET status = 'SENT', attempts = attempts + 1, sent_at = $2, lease_until = NULL,
                last_error = NULL
          WHERE id = $1 AND status = 'QUEUED'`,
        { bind: [record.id, record.at] },
      );
      return;
    }
    await this.sequelize.query(
      `UPDATE customer_emails SET status = $2, attempts = attempts + 1, last_error = $3, lease_until = NULL,
              next_attempt_at = COALESCE($4, next_attempt_at)
        WHERE id = $1 AND status = 'QUEUED'`,
      {
        bind: [
          record.id,
          record.outcome === 'FAILED' ? 'FAILED' : 'QUEUED',
          record.error.slice(0, 1000),
          record.outcome === 'RETRY' ? record.nextAttemptAt : null,
        ],
      },
    );
  }

  /** One customer's emails, newest first (the caller checked the customer is the scope's). */
  list(scope: ProjectScope, customerId: string, page: PageRequest): Promise<CustomerEmailModel[]> {
    return findPage(CustomerEmailModel, { ...scopeWhere(scope), customerId }, page);
  }

  /** QUEUED emails due now (the email loop's backlog). */
  async countDue(now: Date): Promise<number> {
    const [row] = await this.sequelize.query<{ n: string }>(
      `SELECT count(*) AS n FROM customer_emails WHERE status = 'QUEUED' AND next_attempt_at <= $1`,
      { bind: [now], type: QueryTypes.SELECT },
    );
    return Number(row.n);
  }
}
