import { Op, QueryTypes, type Transaction } from 'sequelize';
import type { ProjectScope, RowScope } from '@billing/platform';
import { PaymentModel, type PaymentPurpose, type PaymentStatus } from '../models/payment.model';

export interface NewPayment {
  id: string;
  reference: string;
  purpose: PaymentPurpose;
  customerId: string | null;
  invoiceId: string | null;
  /** The hosted checkout session the payment was made for, if any. */
  checkoutSessionId?: string | null;
  amount: number;
  currency: string;
  status: PaymentStatus;
  gatewayResponse: string | null;
  providerResponse: Record<string, unknown>;
  createdAt: Date;
}

export class PaymentRepository {
  /** Fails with a unique violation when the provider reference was already used. */
  record(scope: ProjectScope, payment: NewPayment, transaction: Transaction): Promise<PaymentModel> {
    return PaymentModel.create(
      { ...payment, projectId: scope.projectId, livemode: scope.livemode, updatedAt: payment.createdAt },
      { transaction },
    );
  }

  /**
   * The ledger rows of charges about to be sent to the provider: PENDING with charge_started_at
   * (what settlement looks for after a crash), written in one INSERT of the caller's
   * transaction. Fails with a unique violation when a reference was already used.
   */
  async recordChargesStarted(
    payments: (Omit<NewPayment, 'status' | 'gatewayResponse'> & RowScope)[],
    chargeStartedAt: Date,
    transaction: Transaction,
  ): Promise<void> {
    if (payments.length === 0) return;
    const column = <K extends keyof (typeof payments)[number]>(key: K) => payments.map((p) => p[key]);
    await PaymentModel.sequelize!.query(
      `INSERT INTO payments (id, project_id, livemode, reference, purpose, customer_id, invoice_id, amount, currency,
         status, gateway_response, provider_response, created_at, updated_at, charge_started_at)
       SELECT p.id, p.project_id, p.livemode, p.reference, p.purpose, p.customer_id, p.invoice_id, p.amount,
              p.currency, 'PENDING', NULL, p.provider_response, p.created_at, p.created_at, $11
         FROM unnest($1::uuid[], $2::uuid[], $3::boolean[], $4::text[], $5::text[], $6::uuid[], $7::uuid[],
                     $8::bigint[], $9::text[], $10::jsonb[], $12::timestamptz[])
           AS p(id, project_id, livemode, reference, purpose, customer_id, invoice_id, amount, currency,
                provider_response, created_at)`,
      {
        bind: [
          column('id'),
          column('projectId'),
          column('livemode'),
          column('reference'),
          column('purpose'),
          column('customerId'),
          column('invoiceId'),
          column('amount'),
          column('currency'),
          payments.map((p) => JSON.stringify(p.providerResponse ?? {})),
          chargeStartedAt,
          column('createdAt'),
        ],
        transaction,
        type: QueryTypes.INSERT,
      },
    );
  }

  /** Which of these invoices have a charge in flight (a PENDING payment). */
  async invoicesWithPendingCharge(invoiceIds: string[], transaction?: Transaction): Promise<Set<string>> {
    const rows = await PaymentModel.sequelize!.query<{ invoice_id: string }>(
      `SELECT DISTINCT invoice_id FROM payments WHERE invoice_id = ANY($1::uuid[]) AND status = 'PENDING'`,
      { bind: [invoiceIds], transaction, type: QueryTypes.SELECT },
    );
    return new Set(rows.map((r) => r.invoice_id));
  }

  /**
   * Records the provider's success of PENDING charges in one UPDATE; returns the references it
   * changed (a payment someone else settled meanwhile is left as it is).
   */
  async markSucceeded(
    outcomes: { reference: string; gatewayResponse: string; at: Date }[],
    transaction: Transaction,
  ): Promise<Set<string>> {
    const rows = await PaymentModel.sequelize!.query<{ reference: string }>(
      `UPDATE payments p SET status = 'SUCCEEDED', gateway_response = o.words, updated_at = o.at
         FROM unnest($1::text[], $2::text[], $3::timestamptz[]) AS o(reference, words, at)
        WHERE p.reference = o.reference AND p.status = 'PENDING'
        RETURNING p.reference`,
      {
        bind: [outcomes.map((o) => o.reference), outcomes.map((o) => o.gatewayResponse), outcomes.map((o) => o.at)],
        transaction,
        type: QueryTypes.SELECT,
      },
    );
    return new Set(rows.map((r) => r.reference));
  }

  /**
   * The charge that paid an invoice (a refund of the invoice gives back part of it); a second
   * payment of it, refunded on its own, is not that charge.
   */
  findSucceededForInvoice(invoiceId: string, transaction?: Transaction): Promise<PaymentModel | null> {
    return PaymentModel.findOne({
      where: { invoiceId, status: 'SUCCEEDED', purpose: { [Op.ne]: 'SECOND_INVOICE_PAYMENT' } },
      transaction,
    });
  }

  /** A payment of an invoice that another payment had paid first: it is given back on its own (§23). */
  async markSecondPayment(payment: PaymentModel, transaction: Transaction): Promise<void> {
    await payment.update({ purpose: 'SECOND_INVOICE_PAYMENT' }, { transaction });
  }

  /** The payment of a reference, locked until the caller's transaction ends. */
  lockByReference(reference: string, transaction: Transaction): Promise<PaymentModel | null> {
    return PaymentModel.findOne({ where: { reference }, transaction, lock: transaction.LOCK.UPDATE });
  }

  /** A PENDING charge sent again now: settlement waits for this call as for the first. */
  async restartCharge(reference: string, now: Date, transaction: Transaction): Promise<void> {
    await PaymentModel.sequelize!.query(
      `UPDATE payments SET charge_started_at = $2 WHERE reference = $1 AND status = 'PENDING'`,
      { bind: [reference, now], transaction },
    );
  }

  /** The provider declined a (locked, PENDING) charge, in its own words. */
  async markFailed(payment: PaymentModel, gatewayResponse: string, at: Date, transaction: Transaction): Promise<void> {
    await payment.update({ status: 'FAILED', gatewayResponse, updatedAt: at }, { transaction });
  }

  /**
   * A stale first charge's outcome as settlement verified it, on its locked PENDING row (a charge
   * that went through is then given back: it has no subscription).
   */
  async settle(
    payment: PaymentModel,
    outcome: {
      status: 'SUCCEEDED' | 'FAILED';
      gatewayResponse: string | null;
      providerResponse: Record<string, unknown>;
      at: Date;
    },
    transaction: Transaction,
  ): Promise<void> {
    await payment.update(
      {
        status: outcome.status,
        gatewayResponse: outcome.gatewayResponse,
        providerResponse: outcome.providerResponse,
        updatedAt: outcome.at,
      },
      { transaction },
    );
  }

  findByReference(reference: string, transaction?: Transaction): Promise<PaymentModel | null> {
    return PaymentModel.findOne({ where: { reference }, transaction });
  }

  /** Whether a charge of this invoice is in flight (a PENDING payment). */
  async hasPendingCharge(invoiceId: string, transaction?: Transaction): Promise<boolean> {
    return (await this.invoicesWithPendingCharge([invoiceId], transaction)).has(invoiceId);
  }

  /** A PENDING charge's clock (real time): settlement takes over a row held longer than its limit. */
  async startCharge(reference: string, now: Date, transaction: Transaction): Promise<void> {
    await PaymentModel.sequelize!.query('UPDATE payments SET charge_started_at = $2 WHERE reference = $1', {
      bind: [reference, now],
      transaction,
    });
  }

  /**
   * Settles a PENDING payment with its outcome (a first charge of POST /subscriptions); a row
   * someone else settled meanwhile is left as it is.
   */
  async settlePending(
    reference: string,
    outcome: {
      status: 'SUCCEEDED' | 'FAILED';
      invoiceId: string | null;
      gatewayResponse: string | null;
      providerResponse: Record<string, unknown>;
      at: Date;
    },
    transaction?: Transaction,
  ): Promise<void> {
    await PaymentModel.update(
      {
        status: outcome.status,
        invoiceId: outcome.invoiceId,
        gatewayResponse: outcome.gatewayResponse,
        providerResponse: outcome.providerResponse,
        updatedAt: outcome.at,
      },
      { where: { reference, status: 'PENDING' }, transaction },
    );
  }

  /**
   * Invoice charges still PENDING whose clock started before `startedBefore` (their process died
   * or lost the answer): what settlement verifies, oldest first, with the business time of the
   * attempt (`at`, from the claim) when it was recorded.
   */
  async staleInvoiceCharges(
    startedBefore: Date,
    options: { projectId?: string; livemode?: boolean; limit: number },
  ): Promise<{ reference: string; livemode: boolean; at: string | null }[]> {
    return PaymentModel.sequelize!.query<{ reference: string; livemode: boolean; at: string | null }>(
      `SELECT reference, livemode, provider_response->>'at' AS at
         FROM payments
        WHERE status = 'PENDING' AND invoice_id IS NOT NULL AND charge_started_at IS NOT NULL
          AND charge_started_at <= $1
          AND ($2::uuid IS NULL OR project_id = $2::uuid)
          AND ($4::boolean IS NULL OR livemode = $4::boolean)
        ORDER BY charge_started_at
        LIMIT $3`,
      {
        bind: [startedBefore, options.projectId ?? null, options.limit, options.livemode ?? null],
        type: QueryTypes.SELECT,
      },
    );
  }

  /**
   * First charges (POST /subscriptions, references starting with `prefix`) still PENDING without
   * an invoice, whose clock started before `startedBefore`: a request that died between charge
   * and record. Oldest first.
   */
  staleFirstCharges(
    prefix: string,
    startedBefore: Date,
    limit: number,
  ): Promise<{ reference: string; livemode: boolean }[]> {
    return PaymentModel.sequelize!.query<{ reference: string; livemode: boolean }>(
      `SELECT reference, livemode FROM payments
        WHERE status = 'PENDING' AND invoice_id IS NULL AND reference LIKE $1 AND charge_started_at <= $2
        ORDER BY charge_started_at LIMIT $3`,
      { bind: [`${prefix}%`, startedBefore, limit], type: QueryTypes.SELECT },
    );
  }

  /**
   * First charges settlement found unknown to the provider (FAILED, never charged) that may
   * still land: created after `createdAfter`, not looked at since `checkedBefore` (updated_at).
   */
  neverChargedFirstCharges(
    prefix: string,
    neverCharged: string,
    window: { createdAfter: Date; checkedBefore: Date },
    limit: number,
  ): Promise<{ reference: string; livemode: boolean }[]> {
    return PaymentModel.sequelize!.query<{ reference: string; livemode: boolean }>(
      `SELECT reference, livemode FROM payments
        WHERE status = 'FAILED' AND gateway_response = $2 AND invoice_id IS NULL AND reference LIKE $1
          AND created_at > $3 AND updated_at <= $4
        ORDER BY updated_at LIMIT $5`,
      {
        bind: [`${prefix}%`, neverCharged, window.createdAfter, window.checkedBefore, limit],
        type: QueryTypes.SELECT,
      },
    );
  }

  /** Notes that a payment was looked at now (its next look waits: neverChargedFirstCharges). */
  async touch(reference: string, at: Date): Promise<void> {
    await PaymentModel.sequelize!.query('UPDATE payments SET updated_at = $2 WHERE reference = $1', {
      bind: [reference, at],
    });
  }

  /**
   * Completions and unused-payment refunds of one checkout session run one after the other: a
   * transaction-scoped advisory lock on the session (billing has no row of its own for it).
   */
  async lockCheckoutSession(checkoutSessionId: string, transaction: Transaction): Promise<void> {
    await PaymentModel.sequelize!.query('SELECT pg_advisory_xact_lock(hashtext($1))', {
      bind: [`checkout:${checkoutSessionId}`],
      transaction,
    });
  }
}
