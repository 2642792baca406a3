import { col, fn, Op, QueryTypes, where, type Transaction, type WhereOptions } from 'sequelize';
import {
  findInScope,
  findPage,
  scopeWhere,
  type PageRequest,
  type PostalAddress,
  type ProjectScope,
} from '@billing/platform';
import { normalizeEmail } from '../../domain/customer-rules';
import type { DocumentLocale } from '../../domain/invoice-parties';
import type { TaxExempt } from '../../domain/invoice-totals';
import { CustomerModel } from '../models';

export interface NewCustomer {
  id: string;
  email: string;
  name: string | null;
  gatewayCustomerId: string | null;
  metadata: Record<string, unknown>;
  createdAt: Date;
  /** Default NONE (docs/api-behaviour.md §21). */
  taxExempt?: TaxExempt;
  /** Buyer details (docs/api-behaviour.md §22): none, and `en`, by default. */
  address?: PostalAddress | null;
  taxId?: string | null;
  preferredLocale?: DocumentLocale;
}

/** Matches the unique index customers_scope_email: e-mails compare case-insensitively. */
const emailIs = (email: string) => where(fn('lower', col('email')), normalizeEmail(email));

export class CustomerRepository {
  /**
   * Just the e-mail of a customer ('' when there is none): event payloads and provider charges
   * need only that, on the renewal hot path, so one plain SELECT rather than a model instance.
   */
  async emailOf(customerId: string, transaction?: Transaction): Promise<string> {
    return (await this.emailsOf([customerId], transaction)).get(customerId) ?? '';
  }

  /** The e-mails of several customers, by id, in one query. */
  async emailsOf(customerIds: string[], transaction?: Transaction): Promise<Map<string, string>> {
    const rows = await CustomerModel.sequelize!.query<{ id: string; email: string }>(
      'SELECT id, email FROM customers WHERE id = ANY($1::uuid[])',
      { bind: [customerIds], transaction, type: QueryTypes.SELECT },
    );
    return new Map(rows.map((r) => [r.id, r.email]));
  }

  create(scope: ProjectScope, customer: NewCustomer, transaction: Transaction): Promise<CustomerModel> {
    return CustomerModel.create(
      {
        ...customer,
        projectId: scope.projectId,
        livemode: scope.livemode,
        balance: 0,
        taxExempt: customer.taxExempt ?? 'NONE',
        address: customer.address ?? null,
        taxId: customer.taxId ?? null,
        preferredLocale: customer.preferredLocale ?? 'en',
        updatedAt: customer.createdAt,
      },
      { transaction },
    );
  }

  /**
   * Inserts the customer unless one with this e-mail exists in the scope, then returns whichever
   * is stored. ON CONFLICT DO NOTHING waits for a concurrent insert of the same e-mail to commit,
   * so two checkouts racing for one new e-mail end with one customer and no error.
   */
  async findOrCreateByEmail(
    scope: ProjectScope,
    customer: NewCustomer,
    transaction: Transaction,
  ): Promise<{ customer: CustomerModel; created: boolean }> {
    const inserted = await CustomerModel.sequelize!.query(
      `INSERT INTO customers (id, project_id, livemode, email, name, gateway_customer_id, metadata, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
       ON CONFLICT DO NOTHING RETURNING id`,
      {
        bind: [
          customer.id,
          scope.projectId,
          scope.livemode,
          customer.email,
          customer.name,
          customer.gatewayCustomerId,
          JSON.stringify(customer.metadata),
          customer.createdAt,
        ],
        transaction,
        type: QueryTypes.SELECT,
      },
    );
    const stored = await this.findByEmail(scope, customer.email, transaction);
    if (!stored) throw new Error('customer neither inserted nor found');
    return { customer: stored, created: inserted.length === 1 };
  }

  /**
   * A returning customer's checkout fills in what the stored record lacks (a name, the provider's
   * customer code); what it has is kept.
   */
  async fillMissing(
    customer: CustomerModel,
    details: { name: string | null; gatewayCustomerId: string | null },
    at: Date,
    transaction: Transaction,
  ): Promise<void> {
    await customer.update(
      {
        name: customer.name ?? details.name,
        gatewayCustomerId: customer.gatewayCustomerId ?? details.gatewayCustomerId,
        updatedAt: at,
      },
      { transaction },
    );
  }

  /**
   * How each of these customers is taxed (docs/api-behaviour.md §21), by id, in one query: what
   * a batch of invoices needs of them.
   */
  async taxExemptionsOf(customerIds: string[], transaction?: Transaction): Promise<Map<string, TaxExempt>> {
    if (customerIds.length === 0) return new Map();
    const rows = await CustomerModel.sequelize!.query<{ id: string; tax_exempt: TaxExempt }>(
      'SELECT id, tax_exempt FROM customers WHERE id = ANY($1::uuid[])',
      { bind: [customerIds], transaction, type: QueryTypes.SELECT },
    );
    return new Map(rows.map((r) => [r.id, r.tax_exempt]));
  }

  /**
   * The e-mail and the tax exemption of each of these customers, by id, in one query: what a
   * batch of subscription views needs of them (read-models/subscription.read-model.ts).
   */
  async emailsAndTaxExemptionsOf(
    customerIds: string[],
    transaction?: Transaction,
  ): Promise<Map<string, { email: string; taxExempt: TaxExempt }>> {
    if (customerIds.length === 0) return new Map();
    const rows = await CustomerModel.sequelize!.query<{ id: string; email: string; tax_exempt: TaxExempt }>(
      'SELECT id, email, tax_exempt FROM customers WHERE id = ANY($1::uuid[])',
      { bind: [customerIds], transaction, type: QueryTypes.SELECT },
    );
    return new Map(rows.map((r) => [r.id, { email: r.email, taxExempt: r.tax_exempt }]));
  }

  /**
   * The merchant's edit of a customer's name, metadata, tax exemption or buyer details (the e-mail
   * never changes).
   */
  save(
    customer: CustomerModel,
    changes: Partial<
      Pick<CustomerModel, 'name' | 'metadata' | 'taxExempt' | 'address' | 'taxId' | 'preferredLocale'>
    > & { updatedAt: Date },
  ): Promise<CustomerModel> {
    return customer.update(changes);
  }

  findByEmail(scope: ProjectScope, email: string, transaction?: Transaction): Promise<CustomerModel | null> {
    return CustomerModel.findOne({
      where: { ...scopeWhere(scope), [Op.and]: [emailIs(email)] } as WhereOptions,
      transaction,
    });
  }

  get(scope: ProjectScope, id: string): Promise<CustomerModel> {
    return findInScope(CustomerModel, scope, id, 'Customer');
  }

  list(scope: ProjectScope, page: PageRequest, filter: { email?: string }): Promise<CustomerModel[]> {
    const where: WhereOptions = filter.email
      ? ({ ...scopeWhere(scope), [Op.and]: [emailIs(filter.email)] } as WhereOptions)
      : scopeWhere(scope);
    return findPage(CustomerModel, where, page);
  }
}
