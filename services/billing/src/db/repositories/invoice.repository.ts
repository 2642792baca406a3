import { randomUUID } from 'node:crypto';
import { QueryTypes, type Transaction } from 'sequelize';
import type { RowScope } from '@billing/platform';
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
  discount: number;
  amount: number;
  creditApplied: number;
  amountDue: number;
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
   * Takes `count` consecutive numbers of the project and mode inside the invoices' transaction;
   * returns the first. The counter row stays locked until commit, so concurrent invoices get
   * consecutive numbers and a rolled-back invoice gives its number back: no gaps, no duplicates.
   */
  async takeNumbers(scope: RowScope, count: number, transaction: Transaction): Promise<number> {
    const [row] = await InvoiceModel.sequelize!.query<{ last_number: string }>(
      `INSERT INTO invoice_counters (project_id, livemode, last_number) VALUES ($1, $2, $3)
       ON CONFLICT (project_id, livemode) DO UPDATE SET last_number = invoice_counters.last_number + $3
       RETURNING last_number`,
      { bind: [scope.projectId, scope.livemode, count], transaction, type: QueryTypes.SELECT },
    );
    return Number(row.last_number) - count + 1;
  }

  /**
   * Numbers and stores invoices with their lines. Only createInvoices (usecases/invoice-money.ts)
   * calls it: the one place a new invoice's money is computed. One counter update per project and mode and
   * one INSERT per table, however many invoices (a batch of renewals). Returned in input order.
   */
  async createMany(invoices: (NewInvoice & RowScope)[], transaction: Transaction): Promise<InvoiceModel[]> {
    const byScope = new Map<string, (NewInvoice & RowScope)[]>();
    for (const invoice of invoices) {
      const key = `${invoice.projectId}:${invoice.livemode}`;
      const group = byScope.get(key);
      if (group) group.push(invoice);
      else byScope.set(key, [invoice]);
    }
    const numbers = new Map<NewInvoice, string>();
    // Counter rows in a fixed order, so two batches never wait on each other crosswise.
    for (const key of [...byScope.keys()].sort()) {
      const group = byScope.get(key)!;
      const first = await this.takeNumbers(group[0], group.length, transaction);
      group.forEach((invoice, k) => numbers.set(invoice, formatInvoiceNumber(first + k)));
    }
    const created = await InvoiceModel.bulkCreate(
      invoices.map(({ lines: _lines, ...fields }, k) => ({
        ...fields,
        number: numbers.get(invoices[k])!,
        amountRefunded: 0,
        updatedAt: fields.createdAt,
      })),
      { transaction },
    );
    await InvoiceLineModel.bulkCreate(
      invoices.flatMap((invoice) =>
        invoice.lines.map((line, position) => ({ ...line, id: randomUUID(), invoiceId: invoice.id, position })),
      ),
      { transaction },
    );
    return created;
  }

  /**
   * Marks OPEN invoices PAID by their charges (each charged its amount_due), in one UPDATE; returns the ids it changed (an
   * invoice closed meanwhile, e.g. voided, is left as it is).
   */
  async markPaidMany(
    paid: { id: string; reference: string; attempt: number; at: Date }[],
    transaction: Transaction,
  ): Promise<Set<string>> {
    const rows = await InvoiceModel.sequelize!.query<{ id: string }>(
      `UPDATE invoices i
          SET status = 'PAID', amount_paid = i.amount_due, paid_at = p.at,
              attempt_count = GREATEST(i.attempt_count, p.attempt), next_payment_attempt = NULL,
              transaction_reference = p.reference, updated_at = p.at
         FROM unnest($1::uuid[], $2::text[], $3::int[], $4::timestamptz[]) AS p(id, reference, attempt, at)
        WHERE i.id = p.id AND i.status = 'OPEN'
        RETURNING i.id`,
      {
        bind: [paid.map((p) => p.id), paid.map((p) => p.reference), paid.map((p) => p.attempt), paid.map((p) => p.at)],
        transaction,
        type: QueryTypes.SELECT,
      },
    );
    return new Set(rows.map((r) => r.id));
  }

  /** Takes invoices off the charge schedule (a charge of each is in flight). */
  async unschedule(invoiceIds: string[], transaction: Transaction): Promise<void> {
    if (invoiceIds.length === 0) return;
    await InvoiceModel.sequelize!.query('UPDATE invoices SET next_payment_attempt = NULL WHERE id = ANY($1::uuid[])', {
      bind: [invoiceIds],
      transaction,
    });
  }

  /** The invoice of one period of a subscription (at most one: UNIQUE (subscription_id, period_start)). */
  findForPeriod(subscriptionId: string, periodStart: Date, transaction?: Transaction): Promise<InvoiceModel | null> {
    return InvoiceModel.findOne({ where: { subscriptionId, periodStart }, transaction });
  }

  linesOf(invoiceId: string, transaction?: Transaction): Promise<InvoiceLineModel[]> {
    return InvoiceLineModel.findAll({ where: { invoiceId }, order: [['position', 'ASC']], transaction });
  }

  /** Records money given back on an invoice (the table's CHECK keeps it within amount_paid). */
  async addRefunded(invoiceId: string, amount: number, now: Date, transaction: Transaction): Promise<void> {
    await InvoiceModel.sequelize!.query(
      'UPDATE invoices SET amount_refunded = amount_refunded + $2, updated_at = $3 WHERE id = $1',
      { bind: [invoiceId, amount, now], transaction },
    );
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
