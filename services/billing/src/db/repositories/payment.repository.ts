import type { Transaction } from 'sequelize';
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

  findByReference(reference: string, transaction?: Transaction): Promise<PaymentModel | null> {
    return PaymentModel.findOne({ where: { reference }, transaction });
  }
}
