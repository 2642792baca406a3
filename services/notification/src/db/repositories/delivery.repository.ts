import { randomUUID } from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';
import {
  findInScope,
  findPage,
  scopeWhere,
  traceHeadersOf,
  type PageRequest,
  type ProjectScope,
  type RetentionRule,
} from '@billing/platform';
import type { DeliveryStatus } from '../../domain/delivery-status';
import { DeliveryAttemptModel, DeliveryModel } from '../models/delivery.model';

/** An event as the fan-out needs it, with the body every attempt will send. */
/**
 * Finished deliveries (SUCCEEDED, FAILED) older than `days`, their attempts with them (ON DELETE
 * CASCADE); read through the index deliveries_finished (docs/deployment.md, "Retention").
 */
export function finishedDeliveryRetention(days: number): RetentionRule {
  return {
    name: 'deliveries',
    table: 'deliveries',
    expired: `status IN ('SUCCEEDED', 'FAILED') AND created_at < $1`,
    days,
  };
}

export interface EventToDeliver {
  id: string;
  event: string;
  projectId: string;
  livemode: boolean;
  body: string;
  createdAt: Date;
  /** The event's trace context, which the delivery's attempts continue. */
  traceHeaders: Record<string, string>;
}

/** A claimed delivery with what sending it takes. */
export interface ClaimedDelivery {
  id: string;
  webhookId: string;
  url: string;
  secretSealed: string;
  event: string;
  body: string;
  status: DeliveryStatus;
  /** This attempt's number. */
  attempt: number;
  traceHeaders: Record<string, string>;
}

export interface AttemptRecord {
  deliveryId: string;
  attempt: number;
  at: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
}

export class DeliveryRepository {
  constructor(private readonly sequelize: Sequelize) {}

  /** Another project's id -> PERMISSION_DENIED; unknown, malformed or the other mode -> NOT_FOUND. */
  get(scope: ProjectScope, id: string): Promise<DeliveryModel> {
    return findInScope(DeliveryModel, scope, id, 'Delivery');
  }

  /** A webhook's deliveries, newest first (the caller checked the webhook is the scope's). */
  list(scope: ProjectScope, webhookId: string, status: DeliveryStatus | undefined, page: PageRequest) {
    return findPage(DeliveryModel, { ...scopeWhere(scope), webhookId, ...(status ? { status } : {}) }, page);
  }

  attemptsOf(deliveryId: string): Promise<DeliveryAttemptModel[]> {
    return DeliveryAttemptModel.findAll({ where: { deliveryId }, order: [['attempt', 'ASC']] });
  }

  /**
   * One delivery per event and matching active webhook of its project and mode, all in one
   * statement; an event seen before (redelivered, duplicated) adds nothing. With `leaseMs`, each
   * row is written already claimed for its first attempt, exactly as `claimDue` would claim it
   * (another claimer skips it until the lease runs out), so the caller sends it at once without
   * a claim of its own; without, it waits due for a worker's pass. Returns the rows it created.
   */
  async createForEvents(events: EventToDeliver[], now: Date, leaseMs: number | null): Promise<ClaimedDelivery[]> {
    if (events.length === 0) return [];
    return this.sequelize.query<ClaimedDelivery>(
      `WITH created AS (
         INSERT INTO deliveries (id, event_id, webhook_id, project_id, livemode, event, body, status,
                                 next_attempt_at, created_at, trace_headers, lease_until)
         SELECT gen_random_uuid(), e.id, w.id, e.project_id, e.livemode, e.event, e.body, 'PENDING', $7, $7,
                e.trace_headers, $7::timestamptz + $9::integer * interval '1 millisecond'
           FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::boolean[], $5::text[], $6::timestamptz[],
                       $8::jsonb[])
                AS e(id, event, project_id, livemode, body, created_at, trace_headers)
           JOIN webhooks w ON w.project_id = e.project_id AND w.livemode = e.livemode AND w.is_active
                          AND (e.event = ANY (w.events) OR '*' = ANY (w.events))
         ON CONFLICT (event_id, webhook_id) DO NOTHING
         RETURNING id, webhook_id, event, body, status, attempts, trace_headers
       )
       SELECT c.id, c.webhook_id AS "webhookId", w.url, w.secret_sealed AS "secretSealed", c.event, c.body,
              c.status, c.attempts + 1 AS attempt, c.trace_headers AS "traceHeaders"
         FROM created c JOIN webhooks w ON w.id = c.webhook_id`,
      {
        bind: [
          events.map((e) => e.id),
          events.map((e) => e.event),
          events.map((e) => e.projectId),
          events.map((e) => e.livemode),
          events.map((e) => e.body),
          events.map((e) => e.createdAt),
          now,
          events.map((e) => JSON.stringify(e.traceHeaders)),
          leaseMs,
        ],
        type: QueryTypes.SELECT,
      },
    );
  }

  /**
   * A delivery of one webhook, made now for a test send; the caller sends it at once, and its
   * attempt is a span of the trace of the request that asked for it (the active one).
   */
  async createTestDelivery(webhookId: string, event: string, body: string, now: Date): Promise<string> {
    const id = randomUUID();
    await this.sequelize.query(
      `INSERT INTO deliveries (id, event_id, webhook_id, project_id, livemode, event, body, status, next_attempt_at,
                               created_at, trace_headers)
       SELECT $1, $2, w.id, w.project_id, w.livemode, $3, $4, 'PENDING', $5, $5, $7 FROM webhooks w WHERE w.id = $6`,
      { bind: [id, randomUUID(), event, body, now, webhookId, JSON.stringify(traceHeadersOf())] },
    );
    return id;
  }

  /**
   * Claims due deliveries with a lease (another claimer skips them until it runs out, so a
   * worker that dies mid-attempt only delays its deliveries), at most `perWebhook` of any one
   * webhook, so a slow or dead receiver's backlog cannot take every slot.
   */
  async claimDue(now: Date, limit: number, perWebhook: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    return this.sequelize.query<ClaimedDelivery>(
      `WITH due AS (
         SELECT d.id FROM deliveries d
          WHERE d.status IN ('PENDING', 'RETRYING') AND d.next_attempt_at <= $1
            AND (d.lease_until IS NULL OR d.lease_until <= $1)
          ORDER BY d.next_attempt_at
          LIMIT $2 * 4
          FOR UPDATE SKIP LOCKED
       ), fair AS (
         SELECT d.id, row_number() OVER (PARTITION BY d.webhook_id ORDER BY d.next_attempt_at) AS n
           FROM deliveries d JOIN due USING (id)
       )
       UPDATE deliveries d SET lease_until = $1::timestamptz + $4 * interval '1 millisecond'
         FROM fair, webhooks w
        WHERE d.id = fair.id AND fair.n <= $3 AND w.id = d.webhook_id
        RETURNING d.id, d.webhook_id AS "webhookId", w.url, w.secret_sealed AS "secretSealed", d.event, d.body,
                  d.status, d.attempts + 1 AS attempt, d.trace_headers AS "traceHeaders"`,
      { bind: [now, limit, perWebhook, leaseMs], type: QueryTypes.SELECT },
    );
  }

  /** Deliveries due now and not yet attempted, and failed ones whose retry is due (the worker's backlog). */
  async countDue(now: Date): Promise<{ firstAttempts: number; retries: number }> {
    const [row] = await this.sequelize.query<{ first_attempts: string; retries: string }>(
      `SELECT count(*) FILTER (WHERE status = 'PENDING') AS first_attempts,
              count(*) FILTER (WHERE status = 'RETRYING') AS retries
         FROM deliveries WHERE status IN ('PENDING', 'RETRYING') AND next_attempt_at <= $1`,
      { bind: [now], type: QueryTypes.SELECT },
    );
    return { firstAttempts: Number(row.first_attempts), retries: Number(row.retries) };
  }

  /** Gives up a claim without an attempt: the delivery is due again for any worker. */
  async releaseLease(deliveryId: string): Promise<void> {
    await this.sequelize.query(
      `UPDATE deliveries SET lease_until = NULL WHERE id = $1 AND status IN ('PENDING', 'RETRYING')`,
      { bind: [deliveryId] },
    );
  }

  /** A FAILED delivery due again now; false when it is no longer FAILED (a concurrent retry). */
  async requestRetry(deliveryId: string, now: Date): Promise<boolean> {
    const [, count] = await this.sequelize.query(
      `UPDATE deliveries SET status = 'RETRYING', next_attempt_at = $2 WHERE id = $1 AND status = 'FAILED'`,
      { bind: [deliveryId, now], type: QueryTypes.UPDATE },
    );
    return count > 0;
  }

  /**
   * Records attempts and their deliveries' next states, many in one statement (so one round
   * trip, atomic without a transaction of its own); releases the leases. Answers one result per
   * record, in order.
   */
  async recordAttempts(records: AttemptRecord[]): Promise<void[]> {
    const column = <T>(pick: (r: AttemptRecord) => T) => records.map(pick);
    await this.sequelize.query(
      `WITH r AS (
         SELECT * FROM unnest($1::uuid[], $2::int[], $3::timestamptz[], $4::int[], $5::int[], $6::text[], $7::text[],
                              $8::timestamptz[])
                AS r(id, attempt, at, status_code, duration_ms, error, status, next_attempt_at)
       ), logged AS (
         INSERT INTO delivery_attempts (delivery_id, attempt, at, status_code, duration_ms, error)
         SELECT id, attempt, at, status_code, duration_ms, error FROM r
         ON CONFLICT DO NOTHING
       )
       UPDATE deliveries d SET status = r.status, attempts = r.attempt, next_attempt_at = r.next_attempt_at,
              lease_until = NULL, last_status_code = r.status_code, last_error = r.error,
              delivered_at = CASE WHEN r.status = 'SUCCEEDED' THEN r.at ELSE d.delivered_at END
         FROM r
        WHERE d.id = r.id`,
      {
        bind: [
          column((r) => r.deliveryId),
          column((r) => r.attempt),
          column((r) => r.at),
          column((r) => r.statusCode),
          column((r) => r.durationMs),
          column((r) => r.error),
          column((r) => r.status),
          column((r) => r.nextAttemptAt),
        ],
      },
    );
    return records.map(() => undefined);
  }
}
