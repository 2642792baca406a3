import { randomUUID } from 'node:crypto';
import { QueryTypes, type Transaction } from 'sequelize';
import type { ProjectScope } from '@billing/platform';
import { formatInvoiceNumber } from '../../domain/invoice-number';
import { InvoiceLineModel, InvoiceModel } from '../models';
import type { InvoiceStatus } from '../models/invoice.model';
import type { InvoiceLineType } from '../models/invoice-line.model';

export interface NewInvoiceLine {
  type: InvoiceLineType;
  description: string;
  /** Exact decimal text. */
  quantity: string;
  unitAmount: number;
  amount: number;
  periodStart: Date;
  periodEnd: Date;
}

export interface NewInvoice {
  id: string;
  subscriptionId: string;
  customerId: string;
  status: InvoiceStatus;
  currency: string;
  subtotal: number;
  amount: number;
  amountPaid: number;
  periodStart: Date;
  periodEnd: Date;
  dueDate: Date;
  paidAt: Date | null;
  attemptCount: number;
  nextPaymentAttempt: Date | null;
  transactionReference: string | null;
  createdAt: Date;
  lines: NewInvoiceLine[];
}

export class InvoiceRepository {
  /**
   * The next number of the project and mode, taken inside the invoice's transaction. The
   * counter row stays locked until commit, so concurrent invoices get consecutive numbers and a
   * rolled-back invoice gives its number back: no gaps, no duplicates.
   */
  async nextNumber(scope: ProjectScope, transaction: Transaction): Promise<string> {
    const [row] = await InvoiceModel.sequelize!.query<{ last_number: string }>(
      `INSERT INTO invoice_counters (project_id, livemode, last_number) VALUES ($1, $2, 1)
       ON CONFLICT (project_id, livemode) DO UPDATE SET last_number = invoice_counters.last_number + 1
       RETURNING last_number`,
      { bind: [scope.projectId, scope.livemode], transaction, type: QueryTypes.SELECT },
    );
    return formatInvoiceNumber(Number(row.last_number));
  }

  /** Numbers the invoice and stores it with its lines. */
  async create(scope: ProjectScope, invoice: NewInvoice, transaction: Transaction): Promise<InvoiceModel> {
    const number = await this.nextNumber(scope, transaction);
    const { lines, ...fields } = invoice;
    const created = await InvoiceModel.create(
      {
        ...fields,
        number,
        projectId: scope.projectId,
        livemode: scope.livemode,
        amountRefunded: 0,
        updatedAt: invoice.createdAt,
      },
      { transaction },
    );
    await InvoiceLineModel.bulkCreate(
      lines.map((line, position) => ({ ...line, id: randomUUID(), invoiceId: created.id, position })),
      { transaction },
    );
    return created;
  }

  /** The invoice of a subscription's first period (a checkout's invoice), if it has one. */
  findFirstOfSubscription(subscriptionId: string, transaction?: Transaction): Promise<InvoiceModel | null> {
    return InvoiceModel.findOne({ where: { subscriptionId }, order: [['periodStart', 'ASC']], transaction });
  }

  /** A customer's invoices, newest first (the customer-detail view). */
  listForCustomer(customerId: string): Promise<InvoiceModel[]> {
    return InvoiceModel.findAll({
      where: { customerId },
      order: [
        ['createdAt', 'DESC'],
        ['id', 'DESC'],
      ],
    });
  }
}
