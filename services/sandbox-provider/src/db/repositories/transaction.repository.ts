import { Op, col, fn, where, type Transaction, type WhereOptions } from 'sequelize';
import { TransactionModel } from '../models';

export type NewTransaction = Pick<
  TransactionModel,
  | 'reference'
  | 'amount'
  | 'currency'
  | 'email'
  | 'status'
  | 'gatewayResponse'
  | 'accessCode'
  | 'callbackUrl'
  | 'metadata'
  | 'authorizationCode'
  | 'channel'
  | 'paidAt'
  | 'createdAt'
>;

interface ReadOptions {
  transaction?: Transaction;
  /** SELECT ... FOR UPDATE: the caller decides on the row and changes it, one request at a time. */
  forUpdate?: boolean;
}

export class TransactionRepository {
  findByReference(reference: string, options: ReadOptions = {}): Promise<TransactionModel | null> {
    return this.findOne({ reference }, options);
  }

  findByAccessCode(accessCode: string, options: ReadOptions = {}): Promise<TransactionModel | null> {
    return this.findOne({ accessCode }, options);
  }

  /** Throws sequelize's UniqueConstraintError when the reference is taken. */
  create(transaction: NewTransaction): Promise<TransactionModel> {
    return TransactionModel.create({ ...transaction });
  }

  /** Oldest first, as a ledger reads. */
  list(filter: { email?: string; reference?: string }): Promise<TransactionModel[]> {
    const conditions: WhereOptions[] = [];
    if (filter.email) conditions.push(where(fn('lower', col('email')), filter.email.toLowerCase()));
    if (filter.reference) conditions.push({ reference: filter.reference });
    return TransactionModel.findAll({
      where: conditions.length ? { [Op.and]: conditions } : {},
      order: [
        ['createdAt', 'ASC'],
        ['id', 'ASC'],
      ],
    });
  }

  private findOne(condition: WhereOptions, options: ReadOptions): Promise<TransactionModel | null> {
    return TransactionModel.findOne({
      where: condition,
      transaction: options.transaction,
      ...(options.forUpdate && options.transaction ? { lock: options.transaction.LOCK.UPDATE } : {}),
    });
  }
}
