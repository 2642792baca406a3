import { col, fn, where, type Transaction } from 'sequelize';
import { CustomerModel } from '../models';

export interface NewCustomer {
  customerCode: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  createdAt: Date;
}

export class CustomerRepository {
  findByEmail(email: string, transaction?: Transaction): Promise<CustomerModel | null> {
    return CustomerModel.findOne({ where: where(fn('lower', col('email')), email.toLowerCase()), transaction });
  }

  /**
   * The customer of this email, created when there is none. ON CONFLICT DO NOTHING rather than
   * catching the unique violation, because a violation would abort the caller's transaction.
   */
  async findOrCreate(customer: NewCustomer, transaction?: Transaction): Promise<CustomerModel> {
    await CustomerModel.bulkCreate([{ ...customer }], { ignoreDuplicates: true, transaction });
    const found = await this.findByEmail(customer.email, transaction);
    if (!found) throw new Error('customer vanished right after its insert');
    return found;
  }
}
