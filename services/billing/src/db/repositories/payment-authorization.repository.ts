import { randomUUID } from 'node:crypto';
import type { Transaction } from 'sequelize';
import type { ProviderAuthorization } from '@billing/payments';
import { PaymentAuthorizationModel } from '../models';

export class PaymentAuthorizationRepository {
  /** The customer's newest card the provider lets us charge again; null = none saved. */
  findReusable(customerId: string, transaction?: Transaction): Promise<PaymentAuthorizationModel | null> {
    return PaymentAuthorizationModel.findOne({
      where: { customerId, reusable: true },
      order: [['createdAt', 'DESC']],
      transaction,
    });
  }

  /** Keeps a card once per customer: the same authorization seen again is not a new card. */
  async save(
    customerId: string,
    authorization: ProviderAuthorization,
    now: Date,
    transaction: Transaction,
  ): Promise<void> {
    await PaymentAuthorizationModel.bulkCreate(
      [
        {
          id: randomUUID(),
          customerId,
          authorizationCode: authorization.authorizationCode,
          last4: authorization.last4 || null,
          brand: authorization.brand || null,
          expMonth: authorization.expMonth || null,
          expYear: authorization.expYear || null,
          reusable: authorization.reusable,
          createdAt: now,
        },
      ],
      { transaction, ignoreDuplicates: true },
    );
  }
}
