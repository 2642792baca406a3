import { Op, col, fn, where, type Transaction, type WhereOptions } from 'sequelize';
import type { CardBehavior, TransactionStatus } from '../../domain/ledger';
import { TransactionModel, type AuthorizationRow, type CustomerRow, type TransactionRow } from '../models';
import { StatementBatches } from '@billing/platform';

/** A transaction to record: every column but the id the database assigns. */
export type NewTransaction = Omit<TransactionRow, 'id'>;

/** What a charge records, given the behavior of the card it is made on. */
export interface RecordedOutcome {
  status: TransactionStatus;
  gatewayResponse: string;
  paidAt: Date | null;
}

/** A charge on a saved card, as `chargeAuthorization` records it. */
export interface AuthorizationCharge {
  authorizationCode: string;
  /** Recorded only when the card is this email's (compared case-insensitively, as everywhere here). */
  email: string;
  reference: string;
  amount: number;
  currency: string;
  metadata: Record<string, unknown>;
  createdAt: Date;
  /** The caller's rule for each behavior: the card is read by the same statement that records the charge. */
  outcomes: Record<CardBehavior, RecordedOutcome>;
}

export interface AuthorizationChargeResult {
  /** Null: no card has this code, and nothing was recorded. */
  authorization: AuthorizationRow | null;
  /** False: the card is another email's, and nothing was recorded. */
  emailMatches: boolean;
  /** The customer of the card's email. */
  customer: CustomerRow | null;
  /** The transaction this call recorded; null when the card was refused above or the reference was taken. */
  charged: TransactionRow | null;
  /** The transaction that already had the reference, when a card of this email was found but nothing was recorded. */
  earlier: TransactionRow | null;
}

/**
 * Charges on saved cards, several per round trip: reads each charge's card (and its customer) and
 * records the transaction only if the card exists and is the charge's email's. The outcome comes
 * from the charge's own table, indexed by the card's behavior as read here. A taken reference is
 * left alone by ON CONFLICT DO NOTHING (no NOT EXISTS: the planner turns it into an anti join that,
 * with statistics lagging a fast-growing ledger, scans the whole table per statement; the
 * correlated lookups below always use the reference index). `earlier` is that reference's row as the statement's snapshot saw it (a
 * data-modifying CTE's rows are invisible to the rest of its statement, so `earlier` is never a
 * row just inserted). References are unique within one call (StatementBatches' key sees to it),
 * so a `charged` row belongs to exactly one input. Rows come back as jsonb: bigints as exact JSON
 * numbers, and no model instances to build. One array parameter per field, in input order.
 */
const CHARGE_AUTHORIZATIONS_SQL = `
  WITH input AS (
    SELECT *
    FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::jsonb[], $7::timestamptz[],
                $8::jsonb[])
      WITH ORDINALITY AS input(authorization_code, email, reference, amount, currency, metadata, created_at,
                               outcomes, position)
  ), charged AS (
    INSERT INTO transactions (reference, amount, currency, email, status, gateway_response, metadata,
                              authorization_code, channel, paid_at, created_at)
    SELECT input.reference, input.amount, input.currency, card.email, outcome.status, outcome."gatewayResponse",
           input.metadata, card.authorization_code, 'authorization', outcome."paidAt", input.created_at
    FROM input
    JOIN authorizations card ON card.authorization_code = input.authorization_code
    CROSS JOIN LATERAL jsonb_to_record(input.outcomes -> card.behavior)
      AS outcome(status text, "gatewayResponse" text, "paidAt" timestamptz)
    WHERE lower(card.email) = lower(input.email)
    ORDER BY input.position
    ON CONFLICT (reference) DO NOTHING
    RETURNING *
  )
  SELECT to_jsonb(card) AS authorization,
         lower(card.email) = lower(input.email) AS email_matches,
         (SELECT to_jsonb(c) FROM customers c WHERE lower(c.email) = lower(card.email)) AS customer,
         (SELECT to_jsonb(charged) FROM charged WHERE charged.reference = input.reference) AS charged,
         (SELECT to_jsonb(t) FROM transactions t WHERE t.reference = input.reference) AS earlier
  FROM input
  LEFT JOIN authorizations card ON card.authorization_code = input.authorization_code
  ORDER BY input.position`;

/**
 * The pg client under sequelize's pool, for what sequelize.query cannot do: run a named
 * statement, which pg prepares once per connection, so PostgreSQL parses and plans the charge
 * statement once instead of on every call (most of its CPU per charge otherwise).
 */
interface PgConnection {
  query<R>(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: R[] }>;
}

/** A row as to_jsonb gives it: snake_case columns, timestamps as ISO text. */
type JsonRow = Record<string, unknown>;

interface ChargeAuthorizationRow {
  authorization: JsonRow | null;
  email_matches: boolean;
  customer: JsonRow | null;
  charged: JsonRow | null;
  earlier: JsonRow | null;
}

const timestamp = (value: unknown) => (value === null ? null : new Date(value as string));

function transactionRow(row: JsonRow): TransactionRow {
  return {
    id: row.id as number,
    reference: row.reference as string,
    amount: row.amount as number,
    currency: row.currency as string,
    email: row.email as string,
    status: row.status as TransactionRow['status'],
    gatewayResponse: row.gateway_response as string | null,
    accessCode: row.access_code as string | null,
    callbackUrl: row.callback_url as string | null,
    metadata: row.metadata as Record<string, unknown>,
    authorizationCode: row.authorization_code as string | null,
    channel: row.channel as TransactionRow['channel'],
    paidAt: timestamp(row.paid_at),
    createdAt: timestamp(row.created_at)!,
  };
}

function authorizationRow(row: JsonRow): AuthorizationRow {
  return {
    id: row.id as number,
    authorizationCode: row.authorization_code as string,
    email: row.email as string,
    customerCode: row.customer_code as string,
    last4: row.last4 as string,
    brand: row.brand as string,
    expMonth: row.exp_month as string,
    expYear: row.exp_year as string,
    behavior: row.behavior as CardBehavior,
    createdAt: timestamp(row.created_at)!,
  };
}

function customerRow(row: JsonRow): CustomerRow {
  return {
    id: row.id as number,
    customerCode: row.customer_code as string,
    email: row.email as string,
    firstName: row.first_name as string | null,
    lastName: row.last_name as string | null,
    createdAt: timestamp(row.created_at)!,
  };
}

interface ReadOptions {
  transaction?: Transaction;
  /** SELECT ... FOR UPDATE: the caller decides on the row and changes it, one request at a time. */
  forUpdate?: boolean;
}

const NO_CARD: AuthorizationChargeResult = {
  authorization: null,
  emailMatches: false,
  customer: null,
  charged: null,
  earlier: null,
};

export class TransactionRepository {
  /**
   * Concurrent charges share statements. Two at a time: enough to keep PostgreSQL busy while node
   * builds the next one; more would only make the statements smaller (measured: batches of ~6
   * at 32 concurrent requests).
   */
  private readonly charges = new StatementBatches<AuthorizationCharge, AuthorizationChargeResult>({
    run: (charges) => this.chargeAuthorizations(charges),
    key: (charge) => charge.reference,
    maxInFlight: 2,
    maxItems: 200,
  });

  findByReference(reference: string, options: ReadOptions = {}): Promise<TransactionModel | null> {
    return this.findOne({ reference }, options);
  }

  findByAccessCode(accessCode: string, options: ReadOptions = {}): Promise<TransactionModel | null> {
    return this.findOne({ accessCode }, options);
  }

  /** Throws sequelize's UniqueConstraintError when the reference is taken. */
  create(transaction: NewTransaction): Promise<TransactionModel> {
    return TransactionModel.create({ ...transaction });
  }

  /**
   * Records a charge on a saved card unless its reference is taken, in a statement shared with
   * the charges of other requests (see CHARGE_AUTHORIZATIONS_SQL). A reference taken by a charge
   * that committed after the statement began is invisible to its snapshot yet blocks the insert;
   * only then is the winner read again.
   */
  async chargeAuthorization(charge: AuthorizationCharge): Promise<AuthorizationChargeResult> {
    // PostgreSQL text cannot hold NUL, so no card has such a code; sent as a parameter, it would
    // fail the statement instead of finding no card.
    if (charge.authorizationCode.includes('\0')) return { ...NO_CARD };
    const result = await this.charges.run(charge);
    if (result.emailMatches && !result.charged && !result.earlier) {
      result.earlier = await this.findByReference(charge.reference);
      if (!result.earlier) throw new Error(`transaction ${charge.reference} blocked a charge, then vanished`);
    }
    return result;
  }

  private async chargeAuthorizations(charges: AuthorizationCharge[]): Promise<AuthorizationChargeResult[]> {
    const { connectionManager } = TransactionModel.sequelize!;
    const connection = (await connectionManager.getConnection({ type: 'write' })) as PgConnection;
    let rows: ChargeAuthorizationRow[];
    try {
      ({ rows } = await connection.query<ChargeAuthorizationRow>({
        name: 'charge-authorizations',
        text: CHARGE_AUTHORIZATIONS_SQL,
        values: [
          charges.map((c) => c.authorizationCode),
          charges.map((c) => c.email),
          charges.map((c) => c.reference),
          charges.map((c) => c.amount),
          charges.map((c) => c.currency),
          charges.map((c) => JSON.stringify(c.metadata)),
          charges.map((c) => c.createdAt),
          charges.map((c) => JSON.stringify(c.outcomes)),
        ],
      }));
    } finally {
      connectionManager.releaseConnection(connection);
    }
    return rows.map((row) => ({
      authorization: row.authorization && authorizationRow(row.authorization),
      emailMatches: row.email_matches === true,
      customer: row.customer && customerRow(row.customer),
      charged: row.charged && transactionRow(row.charged),
      earlier: row.earlier && transactionRow(row.earlier),
    }));
  }

  /** The payer's choice on the hosted page refused the payment; it stays unpaid for good. */
  async markFailed(payment: TransactionModel, gatewayResponse: string, dbTransaction: Transaction): Promise<void> {
    await payment.update({ status: 'failed', gatewayResponse }, { transaction: dbTransaction });
  }

  /** The payer paid on the hosted page with the card it saved: the payment succeeded with that card. */
  async markPaid(
    payment: TransactionModel,
    paid: { gatewayResponse: string; authorizationCode: string; paidAt: Date },
    dbTransaction: Transaction,
  ): Promise<void> {
    await payment.update({ status: 'success', ...paid }, { transaction: dbTransaction });
  }

  /** Oldest first, as a ledger reads. */
  list(filter: { email?: string; reference?: string }): Promise<TransactionModel[]> {
    const conditions: WhereOptions[] = [];
    if (filter.email) conditions.push(where(fn('lower', col('email')), filter.email.toLowerCase()));
    if (filter.reference) conditions.push({ reference: filter.reference });
    return TransactionModel.findAll({
      where: conditions.length ? { [Op.and]: conditions } : {},
      order: [
        ['createdAt', 'ASC'],
        ['id', 'ASC'],
      ],
    });
  }

  private findOne(condition: WhereOptions, options: ReadOptions): Promise<TransactionModel | null> {
    return TransactionModel.findOne({
      where: condition,
      transaction: options.transaction,
      ...(options.forUpdate && options.transaction ? { lock: options.transaction.LOCK.UPDATE } : {}),
    });
  }
}
