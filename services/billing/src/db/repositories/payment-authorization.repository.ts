import { randomUUID } from 'node:crypto';
import { QueryTypes, type Transaction } from 'sequelize';
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

  /** The newest reusable card's authorization code of each of these customers, in one query. */
  async reusableCodesOf(customerIds: string[], transaction?: Transaction): Promise<Map<string, string>> {
    const rows = await PaymentAuthorizationModel.sequelize!.query<{ customer_id: string; authorization_code: string }>(
      `SELECT DISTINCT ON (customer_id) customer_id, authorization_code
         FROM payment_authorizations
        WHERE customer_id = ANY($1::uuid[]) AND reusable
        ORDER BY customer_id, created_at DESC`,
      { bind: [customerIds], transaction, type: QueryTypes.SELECT },
    );
    return new Map(rows.map((r) => [r.customer_id, r.authorization_code]));
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
