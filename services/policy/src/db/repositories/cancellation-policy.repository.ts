import { Op, Transaction } from 'sequelize';
import { DomainError, findInScope, findPage, scopeWhere, type PageRequest, type ProjectScope } from '@billing/platform';
import { CancellationPolicyModel } from '../models/cancellation-policy.model';

const WHAT = 'Cancellation policy';

export class CancellationPolicyRepository {
  create(
    policy: Omit<CancellationPolicyModel['_creationAttributes'], never> & Record<string, unknown>,
    transaction: Transaction,
  ): Promise<CancellationPolicyModel> {
    return CancellationPolicyModel.create(policy, { transaction });
  }

  /** Another project's id -> PERMISSION_DENIED; unknown, malformed or the other mode -> NOT_FOUND. */
  get(scope: ProjectScope, id: string): Promise<CancellationPolicyModel> {
    return findInScope(CancellationPolicyModel, scope, id, WHAT);
  }

  /** Re-reads a policy that `get` found, row-locked, so concurrent PATCHes cannot lose each other's changes. */
  async lockForUpdate(id: string, transaction: Transaction): Promise<CancellationPolicyModel> {
    const policy = await CancellationPolicyModel.findByPk(id, { transaction, lock: Transaction.LOCK.UPDATE });
    if (!policy) throw new DomainError('not_found', `${WHAT} not found`);
    return policy;
  }

  /** Stores a PATCHed policy (every rule checked on the whole of it) on the row lockForUpdate read. */
  save(
    policy: CancellationPolicyModel,
    changes: Pick<
      CancellationPolicyModel,
      | 'name'
      | 'refundType'
      | 'refundPercentage'
      | 'refundWindowDays'
      | 'prorateRefund'
      | 'cancellationFee'
      | 'applyToExisting'
      | 'isDefault'
      | 'updatedAt'
    >,
    transaction: Transaction,
  ): Promise<CancellationPolicyModel> {
    return policy.update(changes, { transaction });
  }

  list(scope: ProjectScope, page: PageRequest): Promise<CancellationPolicyModel[]> {
    return findPage(CancellationPolicyModel, scopeWhere(scope), page);
  }

  findDefault(scope: ProjectScope): Promise<CancellationPolicyModel | null> {
    return CancellationPolicyModel.findOne({ where: { ...scopeWhere(scope), isDefault: true } });
  }

  /**
   * Serializes every change of a project+mode's default until the transaction ends. Without it
   * two writers would both find no other default to unset, and the unique index would fail the
   * second one instead of letting it take over.
   */
  async lockDefault(scope: ProjectScope, transaction: Transaction): Promise<void> {
    await CancellationPolicyModel.sequelize!.query('SELECT pg_advisory_xact_lock(hashtext($1))', {
      bind: [`cancellation-policy-default:${scope.projectId}:${scope.livemode}`],
      transaction,
    });
  }

  /** The previous default stops being one (call under lockDefault). */
  async unsetDefault(scope: ProjectScope, exceptId: string, now: Date, transaction: Transaction): Promise<void> {
    await CancellationPolicyModel.update(
      { isDefault: false, updatedAt: now },
      { where: { ...scopeWhere(scope), isDefault: true, id: { [Op.ne]: exceptId } }, transaction },
    );
  }

  /** False when it was already gone (a concurrent DELETE). */
  async delete(id: string): Promise<boolean> {
    return (await CancellationPolicyModel.destroy({ where: { id } })) > 0;
  }
}
