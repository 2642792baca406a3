import { QueryTypes, type Transaction } from 'sequelize';
import type { CheckoutPaymentState } from '../../domain/checkout-session';
import { CheckoutPaymentModel } from '../models/checkout-payment.model';

export class CheckoutPaymentRepository {
  /** Written before the provider hears of the transaction, so no started payment goes unwatched. */
  async recordStart(sessionId: string, reference: string, now: Date, transaction?: Transaction): Promise<void> {
    await CheckoutPaymentModel.create(
      { reference, sessionId, state: 'STARTED', startedAt: now, checkedAt: null },
      { transaction },
    );
  }

  /** The payment of this reference, only if this session started it. */
  findOfSession(sessionId: string, reference: string, transaction?: Transaction) {
    return CheckoutPaymentModel.findOne({ where: { reference, sessionId }, transaction });
  }

  /** The session's payments whose outcome is not known yet. */
  listStarted(sessionId: string, transaction?: Transaction): Promise<CheckoutPaymentModel[]> {
    return CheckoutPaymentModel.findAll({
      where: { sessionId, state: 'STARTED' },
      order: [['startedAt', 'ASC']],
      transaction,
    });
  }

  /** Records billing's word; a payment whose outcome is known already keeps it. */
  async settle(reference: string, state: CheckoutPaymentState, now: Date, transaction?: Transaction) {
    await CheckoutPaymentModel.update(
      { state, checkedAt: now },
      { where: { reference, state: 'STARTED' }, transaction },
    );
  }

  /**
   * Payments of sessions that ended (completed by another payment, expired, cancelled) whose
   * outcome is not known, started after `startedAfter`: a late payment to refund may still come.
   * Least recently checked first.
   */
  listUnsettledOfEndedSessions(startedAfter: Date, checkedBefore: Date, limit: number) {
    return CheckoutPaymentModel.sequelize!.query<{ reference: string; session_id: string }>(
      `SELECT p.reference, p.session_id
         FROM checkout_payments p JOIN checkout_sessions s ON s.id = p.session_id
        WHERE p.state = 'STARTED' AND s.status <> 'PENDING' AND p.started_at > $1
          AND (p.checked_at IS NULL OR p.checked_at < $2)
        ORDER BY p.checked_at NULLS FIRST, p.started_at LIMIT $3`,
      { bind: [startedAfter, checkedBefore, limit], type: QueryTypes.SELECT },
    );
  }

  /** Asked about now, outcome still unknown. */
  async touch(reference: string, now: Date): Promise<void> {
    await CheckoutPaymentModel.update({ checkedAt: now }, { where: { reference, state: 'STARTED' } });
  }
}
