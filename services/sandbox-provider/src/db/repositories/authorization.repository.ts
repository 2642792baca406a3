import type { Transaction } from 'sequelize';
import type { CardBehavior } from '../../domain/ledger';
import { AuthorizationModel } from '../models';

export type NewAuthorization = Pick<
  AuthorizationModel,
  'authorizationCode' | 'email' | 'customerCode' | 'last4' | 'brand' | 'expMonth' | 'expYear' | 'behavior' | 'createdAt'
>;

export class AuthorizationRepository {
  findByCode(authorizationCode: string, transaction?: Transaction): Promise<AuthorizationModel | null> {
    return AuthorizationModel.findOne({ where: { authorizationCode }, transaction });
  }

  create(authorization: NewAuthorization, transaction?: Transaction): Promise<AuthorizationModel> {
    return AuthorizationModel.create({ ...authorization }, { transaction });
  }

  /** False when no authorization has this code. */
  async setBehavior(authorizationCode: string, behavior: CardBehavior): Promise<boolean> {
    const [updated] = await AuthorizationModel.update({ behavior }, { where: { authorizationCode } });
    return updated > 0;
  }
}
