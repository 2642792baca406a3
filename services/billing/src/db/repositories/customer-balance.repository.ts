import { randomUUID } from 'node:crypto';
import { QueryTypes, type Transaction } from 'sequelize';
import { findPage, scopeWhere, type PageRequest, type ProjectScope } from '@billing/platform';
import { balanceAfter, balanceCurrencyAfter, type BalanceTransactionType } from '../../domain/customer-balance';
import { CustomerBalanceTransactionModel, CustomerModel } from '../models';

export interface BalanceChange {
  /** Chosen by the caller when a retry must find it (an Idempotency-Key); else a new one. */
  id?: string;
  customerId: string;
  type: BalanceTransactionType;
  /** Signed minor units, never 0. */
  amount: number;
  /** The change's currency: it sets the balance's on its first change, else must be it (§20). */
  currency: string;
  description: string | null;
  invoiceId: string | null;
  /** The project's time of the change. */
  at: Date;
}

/** A customer's balance and its currency (null until its first change). */
export interface CustomerBalance {
  amount: number;
  currency: string | null;
}

/** Customer balances (docs/api-behaviour.md §20) and their ledger. */
export class CustomerBalanceRepository {
  /**
   * The one way a balance changes, in the caller's transaction: locks the customer row
   * (SELECT ... FOR UPDATE, held until the caller commits, so concurrent changes of one customer
   * run one after the other), refuses a result below 0 (InsufficientBalanceError) and a change
   * in another currency than the balance's (BalanceCurrencyError), nothing written; then writes the ledger row with the balance it leaves and the new balance.
   * Adjustments, invoices using credit and proration credits all come through here.
   */
  async change(change: BalanceChange, transaction: Transaction): Promise<CustomerBalanceTransactionModel> {
    const [customer] = await CustomerModel.sequelize!.query<{
      project_id: string;
      livemode: boolean;
      balance: string;
      balance_currency: string | null;
    }>('SELECT project_id, livemode, balance, balance_currency FROM customers WHERE id = $1 FOR UPDATE', {
      bind: [change.customerId],
      transaction,
      type: QueryTypes.SELECT,
    });
    if (!customer) throw new Error(`customer ${change.customerId} not found`);
    const currency = balanceCurrencyAfter(customer.balance_currency, change.currency);
    const after = balanceAfter(Number(customer.balance), change.amount);
    await CustomerModel.sequelize!.query(
      'UPDATE customers SET balance = $2, balance_currency = $3, updated_at = $4 WHERE id = $1',
      { bind: [change.customerId, after, currency, change.at], transaction },
    );
    return CustomerBalanceTransactionModel.create(
      {
        id: change.id ?? randomUUID(),
        projectId: customer.project_id,
        livemode: customer.livemode,
        customerId: change.customerId,
        type: change.type,
        amount: change.amount,
        balanceAfter: after,
        currency,
        description: change.description,
        invoiceId: change.invoiceId,
        createdAt: change.at,
      },
      { transaction },
    );
  }

  /**
   * The balances above 0 of some customers, by id, in one query; those rows stay locked
   * (FOR UPDATE, in id order so two batches never wait on each other crosswise) until the caller
   * commits, so the credit an invoice counts on is still there when change() takes it.
   * Customers without credit are neither returned nor locked: a batch of renewals pays for
   * balances only where there are some.
   */
  async lockPositiveBalances(customerIds: string[], transaction: Transaction): Promise<Map<string, CustomerBalance>> {
    if (customerIds.length === 0) return new Map();
    const rows = await CustomerModel.sequelize!.query<{ id: string; balance: string; balance_currency: string }>(
      `SELECT id, balance, balance_currency FROM customers WHERE id = ANY($1::uuid[]) AND balance > 0
        ORDER BY id FOR UPDATE`,
      { bind: [customerIds], transaction, type: QueryTypes.SELECT },
    );
    return new Map(rows.map((r) => [r.id, { amount: Number(r.balance), currency: r.balance_currency }]));
  }

  /** A customer's balance now, read without a lock (a preview: docs/api-behaviour.md §18). */
  async balanceOf(customerId: string, transaction?: Transaction): Promise<CustomerBalance> {
    const customer = await CustomerModel.findByPk(customerId, {
      attributes: ['id', 'balance', 'balanceCurrency'],
      transaction,
    });
    return { amount: customer?.balance ?? 0, currency: customer?.balanceCurrency ?? null };
  }

  /** One ledger row, by id (a retried adjustment finds the first one's). */
  find(id: string, transaction?: Transaction): Promise<CustomerBalanceTransactionModel | null> {
    return CustomerBalanceTransactionModel.findByPk(id, { transaction });
  }

  /** A customer's balance history, newest first. */
  list(scope: ProjectScope, customerId: string, page: PageRequest): Promise<CustomerBalanceTransactionModel[]> {
    return findPage(CustomerBalanceTransactionModel, { ...scopeWhere(scope), customerId }, page);
  }
}
