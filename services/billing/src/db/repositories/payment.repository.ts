import { QueryTypes, type Transaction } from 'sequelize';
import type { ProjectScope } from '@billing/platform';
import { PaymentModel, type PaymentPurpose, type PaymentStatus } from '../models/payment.model';

export interface NewPayment {
  id: string;
  reference: string;
  purpose: PaymentPurpose;
  customerId: string;
  invoiceId: string | null;
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
   * The ledger row of a charge about to be sent to the provider: PENDING with charge_started_at
   * (what settlement looks for after a crash), written in one INSERT of the caller's
   * transaction. Fails with a unique violation when the reference was already used.
   */
  async recordChargeStarted(
    scope: ProjectScope,
    payment: Omit<NewPayment, 'status' | 'gatewayResponse'>,
    chargeStartedAt: Date,
    transaction: Transaction,
  ): Promise<void> {
    await PaymentModel.sequelize!.query(
      `INSERT INTO payments (id, project_id, livemode, reference, purpose, customer_id, invoice_id, amount, currency,
         status, gateway_response, provider_response, created_at, updated_at, charge_started_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'PENDING', NULL, $10, $11, $11, $12)`,
      {
        bind: [
          payment.id,
          scope.projectId,
          scope.livemode,
          payment.reference,
          payment.purpose,
          payment.customerId,
          payment.invoiceId,
          payment.amount,
          payment.currency,
          JSON.stringify(payment.providerResponse ?? {}),
          payment.createdAt,
          chargeStartedAt,
        ],
        transaction,
        type: QueryTypes.INSERT,
      },
    );
  }

  findByReference(reference: string, transaction?: Transaction): Promise<PaymentModel | null> {
    return PaymentModel.findOne({ where: { reference }, transaction });
  }
}
