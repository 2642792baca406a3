import { QueryTypes, type Transaction } from 'sequelize';
import { findInScope, type ProjectScope } from '@billing/platform';
import { isCheckoutCode, type CheckoutQuote, type CheckoutStatus } from '../../domain/checkout-session';
import { CheckoutSessionModel } from '../models/checkout-session.model';

export type NewCheckoutSession = Pick<
  CheckoutSessionModel,
  | 'id'
  | 'projectId'
  | 'merchantId'
  | 'livemode'
  | 'code'
  | 'planId'
  | 'successUrl'
  | 'cancelUrl'
  | 'customerEmail'
  | 'customerName'
  | 'metadata'
  | 'expiresAt'
  | 'createdAt'
  | 'allowPromotionCodes'
  | 'coupon'
  | 'taxRateIds'
  | 'planTaxRateIds'
  | 'quote'
  | 'sellerName'
>;

/**
 * PENDING sessions past their expiry ($1 the real now): a test-mode session's expiry is in its
 * project's test time, real time + the clock's offset.
 */
const EXPIRED_SESSIONS = `checkout_sessions cs
    LEFT JOIN test_clocks tc ON tc.project_id = cs.project_id AND NOT cs.livemode
   WHERE cs.status = 'PENDING'
     AND cs.expires_at <= $1::timestamptz + COALESCE(tc.offset_ms, 0) * interval '1 millisecond'`;

export class CheckoutSessionRepository {
  create(session: NewCheckoutSession, transaction?: Transaction): Promise<CheckoutSessionModel> {
    return CheckoutSessionModel.create({ ...session, status: 'PENDING' }, { transaction });
  }

  getByCode(scope: ProjectScope, code: string): Promise<CheckoutSessionModel> {
    return findInScope(CheckoutSessionModel, scope, code, 'Checkout session', {
      field: 'code',
      isValid: isCheckoutCode,
    });
  }

  /** The hosted pages know only the code; it is the capability. */
  findByCode(code: string): Promise<CheckoutSessionModel | null> {
    return isCheckoutCode(code) ? CheckoutSessionModel.findOne({ where: { code } }) : Promise.resolve(null);
  }

  /**
   * Moves a PENDING session on. The status condition in the UPDATE makes concurrent movers
   * (callback vs webhook, expiry sweep vs payment) safe: exactly one gets the row back.
   */
  async leavePending(
    id: string,
    status: Exclude<CheckoutStatus, 'PENDING'>,
    changes: Partial<Pick<CheckoutSessionModel, 'customerId' | 'subscriptionId' | 'completedAt'>>,
    transaction: Transaction,
  ): Promise<CheckoutSessionModel | null> {
    const [count, rows] = await CheckoutSessionModel.update(
      { ...changes, status },
      { where: { id, status: 'PENDING' }, returning: true, transaction },
    );
    return count === 1 ? rows[0] : null;
  }

  findById(id: string): Promise<CheckoutSessionModel | null> {
    return CheckoutSessionModel.findByPk(id);
  }

  /** The session, locked until the caller's transaction ends (a completion in progress). */
  lockById(id: string, transaction: Transaction): Promise<CheckoutSessionModel | null> {
    return CheckoutSessionModel.findByPk(id, { transaction, lock: transaction.LOCK.UPDATE });
  }

  /** The coupon the hosted page applied (or removed, null): the price the next payment pays. */
  /** A new coupon and billing's quote of the first invoice with it, together. */
  async setCoupon(
    session: CheckoutSessionModel,
    coupon: CheckoutSessionModel['coupon'],
    quote: CheckoutQuote,
    transaction: Transaction,
  ): Promise<void> {
    await session.update({ coupon, quote }, { transaction });
  }

  /** Reads a session again after another statement changed it, so the caller answers with what is stored now. */
  refresh(session: CheckoutSessionModel): Promise<CheckoutSessionModel> {
    return session.reload();
  }

  async recordPaymentStart(
    id: string,
    changes: { reference: string; email: string; name: string | null; emailTypedByPayer: boolean },
  ) {
    await CheckoutSessionModel.update(
      {
        transactionReference: changes.reference,
        customerEmail: changes.email,
        customerName: changes.name,
        customerEmailTypedByPayer: changes.emailTypedByPayer,
      },
      { where: { id, status: 'PENDING' } },
    );
  }

  /**
   * Pending sessions past their expiry, claimed so that several replicas split the work. A
   * test-mode session's expiry is in its project's test time: real time + the clock's offset.
   * `withPayment`: only those with a payment started and not settled (they need the provider's
   * word before they may expire), else only those without.
   */
  async claimExpired(
    realNow: Date,
    livemode: boolean,
    limit: number,
    transaction: Transaction,
    options: { withPayment: boolean; skip?: string[] },
  ): Promise<string[]> {
    const rows = await CheckoutSessionModel.sequelize!.query<{ id: string }>(
      `SELECT cs.id FROM ${EXPIRED_SESSIONS} AND cs.livemode = $3
          AND $4::boolean = EXISTS (SELECT 1 FROM checkout_payments p WHERE p.session_id = cs.id AND p.state = 'STARTED')
          AND NOT (cs.id = ANY($5::uuid[]))
        ORDER BY cs.expires_at LIMIT $2 FOR UPDATE OF cs SKIP LOCKED`,
      {
        bind: [realNow, limit, livemode, options.withPayment, options.skip ?? []],
        type: QueryTypes.SELECT,
        transaction,
      },
    );
    return rows.map((r) => r.id);
  }

  /** How many sessions of both modes are past their expiry and still PENDING (the sweep's backlog). */
  async countExpired(realNow: Date): Promise<number> {
    const [row] = await CheckoutSessionModel.sequelize!.query<{ count: string }>(
      `SELECT count(*) AS count FROM ${EXPIRED_SESSIONS}`,
      { bind: [realNow], type: QueryTypes.SELECT },
    );
    return Number(row.count);
  }
}
