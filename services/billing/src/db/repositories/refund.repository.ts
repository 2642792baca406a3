import { Op, QueryTypes, type Transaction } from 'sequelize';
import type { ProjectScope } from '@billing/platform';
import { RefundModel, type RefundReason } from '../models/refund.model';

export interface NewRefund {
  id: string;
  reference: string;
  paymentId: string;
  transactionReference: string;
  invoiceId: string | null;
  subscriptionId: string | null;
  amount: number;
  currency: string;
  reason: RefundReason;
  /** The cancellation policy that decided it (CANCELLATION refunds). */
  policyId?: string | null;
  /** The project's time (test clock in test mode). */
  createdAt: Date;
  /** Real time: when a refund the provider could not take is retried is counted from it. */
  updatedAt: Date;
}

export class RefundRepository {
  /** Records the decision to refund (PENDING); it is issued after the deciding transaction commits. */
  create(scope: ProjectScope, refund: NewRefund, transaction: Transaction): Promise<RefundModel> {
    return RefundModel.create(
      {
        ...refund,
        policyId: refund.policyId ?? null,
        projectId: scope.projectId,
        livemode: scope.livemode,
        status: 'PENDING',
        providerRefundId: null,
        failureReason: null,
        processedAt: null,
      },
      { transaction },
    );
  }

  /** Refunds of a subscription still waiting to be issued. */
  /** Refunds of first charges whose subscription was never created, not yet sent (a batch of them). */
  listPendingAbandonedCharges(limit: number): Promise<RefundModel[]> {
    return RefundModel.findAll({ where: { reason: 'ABANDONED_CHARGE', status: 'PENDING' }, limit });
  }

  listPendingForSubscription(subscriptionId: string): Promise<RefundModel[]> {
    return RefundModel.findAll({ where: { subscriptionId, status: 'PENDING' }, order: [['createdAt', 'ASC']] });
  }

  /** The refund of our idempotency key, if one was decided. */
  findByReference(reference: string, transaction?: Transaction): Promise<RefundModel | null> {
    return RefundModel.findOne({ where: { reference }, transaction });
  }

  findById(id: string, transaction?: Transaction): Promise<RefundModel | null> {
    return RefundModel.findByPk(id, { transaction });
  }

  /**
   * Refunds left PENDING since before `notAfter` (real time): the provider could not take them,
   * or the caller that decided them died before issuing. Oldest first.
   */
  listPendingSince(notAfter: Date, limit: number): Promise<RefundModel[]> {
    return RefundModel.findAll({
      where: { status: 'PENDING', updatedAt: { [Op.lte]: notAfter } },
      order: [['updatedAt', 'ASC']],
      limit,
    });
  }

  /** What is being refunded of an invoice and not yet recorded on it (PENDING or PROCESSING). */
  async amountInFlightForInvoice(invoiceId: string, transaction?: Transaction): Promise<number> {
    const [row] = await RefundModel.sequelize!.query<{ total: string }>(
      `SELECT COALESCE(SUM(amount), 0) AS total FROM refunds
        WHERE invoice_id = $1 AND status IN ('PENDING', 'PROCESSING')`,
      { bind: [invoiceId], transaction, type: QueryTypes.SELECT },
    );
    return Number(row.total);
  }

  /**
   * Takes the refund for issuing: one atomic PENDING -> PROCESSING update, so of any number of
   * concurrent callers (replicas, a repeated request) exactly one talks to the provider. Counts
   * the attempt before the call; returns the claimed row, or null when someone else holds it.
   */
  async claim(id: string, now: Date): Promise<RefundModel | null> {
    const [count, rows] = await RefundModel.update(
      { status: 'PROCESSING', updatedAt: now, attempts: RefundModel.sequelize!.literal('attempts + 1') },
      { where: { id, status: 'PENDING' }, returning: true },
    );
    return count === 1 ? rows[0] : null;
  }

  /**
   * Refunds left PROCESSING since before `notAfter` (real time, longer than any provider call
   * may take): their caller died between claiming and recording. Each is claimed again (a new
   * attempt, so the provider is asked before anything is resent) under SKIP LOCKED, so
   * replicas split them and never take the same one.
   */
  async reclaimStale(notAfter: Date, now: Date, limit: number): Promise<RefundModel[]> {
    const [rows] = await RefundModel.sequelize!.query(
      `UPDATE refunds SET attempts = attempts + 1, updated_at = $2
        WHERE id IN (SELECT id FROM refunds WHERE status = 'PROCESSING' AND updated_at <= $1
                      ORDER BY updated_at LIMIT $3 FOR UPDATE SKIP LOCKED)
        RETURNING id`,
      { bind: [notAfter, now, limit] },
    );
    const ids = (rows as { id: string }[]).map((r) => r.id);
    return ids.length ? RefundModel.findAll({ where: { id: ids } }) : [];
  }

  /** The provider refund ids our other refunds of this transaction recorded. */
  async providerIdsRecordedFor(transactionReference: string, exceptId: string): Promise<Set<string>> {
    const rows = await RefundModel.findAll({
      attributes: ['providerRefundId'],
      where: { transactionReference, id: { [Op.ne]: exceptId }, providerRefundId: { [Op.ne]: null } },
    });
    return new Set(rows.map((r) => r.providerRefundId!));
  }

  /** False when the refund was not PROCESSING (someone else recorded its outcome). */
  async markProcessed(id: string, providerRefundId: string, now: Date, transaction?: Transaction): Promise<boolean> {
    const [count] = await RefundModel.update(
      { status: 'PROCESSED', providerRefundId, processedAt: now, updatedAt: now },
      { where: { id, status: 'PROCESSING' }, transaction },
    );
    return count === 1;
  }

  async markFailed(id: string, reason: string, now: Date): Promise<void> {
    await RefundModel.update(
      { status: 'FAILED', failureReason: reason, updatedAt: now },
      { where: { id, status: 'PROCESSING' } },
    );
  }

  /** The provider could not be reached: the refund goes back to the queue for the next attempt. */
  async release(id: string, now: Date): Promise<void> {
    await RefundModel.update({ status: 'PENDING', updatedAt: now }, { where: { id, status: 'PROCESSING' } });
  }
}
