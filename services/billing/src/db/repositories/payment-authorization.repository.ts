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
   * The card a customer's "Update card" verified becomes the subscription's newest card
   * (docs/api-behaviour.md §20, "Updating the card"), also when the provider answers with an
   * authorization it gave before (Paystack may for the same card): that row of this subscription
   * is made the newest again, so cardsOfSubscriptions picks it over a card saved since.
   */
  async makeSubscriptionCard(
    customerId: string,
    subscriptionId: string,
    authorization: ProviderAuthorization,
    now: Date,
    transaction: Transaction,
  ): Promise<void> {
    await PaymentAuthorizationModel.sequelize!.query(
      `INSERT INTO payment_authorizations
         (id, customer_id, authorization_code, last4, brand, exp_month, exp_year, reusable, subscription_id, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (customer_id, authorization_code, subscription_id) DO UPDATE
         SET last4 = EXCLUDED.last4, brand = EXCLUDED.brand, exp_month = EXCLUDED.exp_month,
             exp_year = EXCLUDED.exp_year, reusable = EXCLUDED.reusable, created_at = EXCLUDED.created_at`,
      {
        bind: [
          randomUUID(),
          customerId,
          authorization.authorizationCode,
          authorization.last4 || null,
          authorization.brand || null,
          authorization.expMonth || null,
          authorization.expYear || null,
          authorization.reusable,
          subscriptionId,
          now,
        ],
        transaction,
        type: QueryTypes.INSERT,
      },
    );
  }

  /**
   * Keeps a card once per customer and subscription (null: the customer's own): the same
   * authorization seen again is not a new card.
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
