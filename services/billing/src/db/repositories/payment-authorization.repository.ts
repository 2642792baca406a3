import { randomUUID } from 'node:crypto';
import { QueryTypes, type Transaction } from 'sequelize';
import type { ProviderAuthorization } from '@billing/payments';
import { PaymentAuthorizationModel } from '../models';

export class PaymentAuthorizationRepository {
  /** The customer's own newest card the provider lets us charge again; null = none saved. */
  findReusable(customerId: string, transaction?: Transaction): Promise<PaymentAuthorizationModel | null> {
    return PaymentAuthorizationModel.findOne({
      where: { customerId, reusable: true, subscriptionId: null },
      order: [['createdAt', 'DESC']],
      transaction,
    });
  }

  /**
   * The card the customer's renewals charge, as the customer portal shows it (docs/api-behaviour.md
   * §24): its own newest reusable card, else the newest reusable card one of its subscriptions
   * keeps (a hosted checkout's, §20); null = none saved.
   */
  cardOnFile(customerId: string): Promise<PaymentAuthorizationModel | null> {
    return PaymentAuthorizationModel.findOne({
      where: { customerId, reusable: true },
      order: [
        [PaymentAuthorizationModel.sequelize!.literal('(subscription_id IS NULL)'), 'DESC'],
        ['createdAt', 'DESC'],
      ],
    });
  }

  /**
   * The card that pays each of these subscriptions, in one query: the subscription's own (a
   * hosted checkout's, docs/api-behaviour.md §20), else its customer's own newest reusable card.
   */
  async cardsOfSubscriptions(subscriptionIds: string[], transaction?: Transaction): Promise<Map<string, string>> {
    if (subscriptionIds.length === 0) return new Map();
    const rows = await PaymentAuthorizationModel.sequelize!.query<{ id: string; authorization_code: string }>(
      `SELECT DISTINCT ON (s.id) s.id, a.authorization_code
         FROM subscriptions s
         JOIN payment_authorizations a ON a.customer_id = s.customer_id AND a.reusable
          AND (a.subscription_id = s.id OR a.subscription_id IS NULL)
        WHERE s.id = ANY($1::uuid[])
        ORDER BY s.id, (a.subscription_id IS NULL), a.created_at DESC`,
      { bind: [subscriptionIds], transaction, type: QueryTypes.SELECT },
    );
    return new Map(rows.map((r) => [r.id, r.authorization_code]));
  }

  /**
   * Keeps a card once per customer: the same authorization seen again is not a new card.
   * `subscriptionId`: the one subscription it pays (§20); null, the customer's own card.
   */
  async save(
    customerId: string,
    authorization: ProviderAuthorization,
    now: Date,
    transaction: Transaction,
    subscriptionId: string | null = null,
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
          subscriptionId,
          createdAt: now,
        },
      ],
      { transaction, ignoreDuplicates: true },
    );
  }
}
