import { randomUUID } from 'node:crypto';
import { Op, QueryTypes, type Transaction, type WhereOptions } from 'sequelize';
import {
  findInScope,
  findPage,
  scopeWhere,
  type PageRequest,
  type ProjectScope,
  type RowScope,
} from '@billing/platform';
import { formatInvoiceNumber } from '../../domain/invoice-number';
import type { InvoiceBuyer, InvoiceSeller } from '../../domain/invoice-parties';
import type { TaxAmount } from '../../domain/invoice-totals';
import { InvoiceLineModel, InvoiceModel } from '../models';
import type { StoredPlanChange } from '../../domain/plan-change';
import type { PeriodInvoiceMoney } from '../../domain/period-payment';
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
  /** The tax rates that apply to the line (docs/api-behaviour.md §21); none when absent. */
  taxRateIds?: string[];
}

export interface NewInvoice {
  id: string;
  subscriptionId: string;
  customerId: string;
  status: InvoiceStatus;
  currency: string;
  subtotal: number;
  discount: number;
  tax: number;
  totalExcludingTax: number;
  amount: number;
  totalTaxAmounts: TaxAmount[];
  taxNote: string | null;
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
  /** The plan change a proration invoice pays for (docs/api-behaviour.md §18); absent on others. */
  planChange?: StoredPlanChange | null;
  /** The seller and the buyer as they are now (docs/api-behaviour.md §22), kept as they are. */
  seller: InvoiceSeller;
  buyer: InvoiceBuyer;
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
        invoice.lines.map((line, position) => ({
          ...line,
          taxRateIds: line.taxRateIds ?? [],
          id: randomUUID(),
          invoiceId: invoice.id,
          position,
        })),
      ),
      { transaction },
    );
    return created;
  }

  /**
   * The "invoice paid" rule's rows (usecases/invoice-payment/invoice-paid.ts is its only caller):
   * OPEN invoices become PAID by their charges (amount_paid = amount_due: the card's part, 0 when
   * the balance paid it all; no reference when nothing was charged), in one UPDATE however many.
   * The models passed in get the same fields, so callers answer and build events from them without
   * reading the rows again. Returns the ids it changed: an invoice closed meanwhile (e.g. voided)
   * is left as it is.
   */
  async markPaidMany(
    paid: { invoice: InvoiceModel; reference: string | null; attempt: number; at: Date }[],
    transaction: Transaction,
  ): Promise<Set<string>> {
    if (paid.length === 0) return new Set();
    const rows = await InvoiceModel.sequelize!.query<{ id: string }>(
      `UPDATE invoices i
          SET status = 'PAID', amount_paid = i.amount_due, paid_at = p.at,
              attempt_count = GREATEST(i.attempt_count, p.attempt), next_payment_attempt = NULL,
              transaction_reference = p.reference, updated_at = p.at
         FROM unnest($1::uuid[], $2::text[], $3::int[], $4::timestamptz[]) AS p(id, reference, attempt, at)
        WHERE i.id = p.id AND i.status = 'OPEN'
        RETURNING i.id`,
      {
        bind: [
          paid.map((p) => p.invoice.id),
          paid.map((p) => p.reference),
          paid.map((p) => p.attempt),
          paid.map((p) => p.at),
        ],
        transaction,
        type: QueryTypes.SELECT,
      },
    );
    const changed = new Set(rows.map((r) => r.id));
    for (const { invoice, reference, attempt, at } of paid) {
      if (!changed.has(invoice.id)) continue;
      invoice.set(
        {
          status: 'PAID',
          amountPaid: invoice.amountDue,
          paidAt: at,
          attemptCount: Math.max(invoice.attemptCount, attempt),
          nextPaymentAttempt: null,
          transactionReference: reference,
          updatedAt: at,
        },
        { raw: true },
      );
    }
    return changed;
  }

  /**
   * When the invoice's first charge failed (its dunning schedule counts from it): set once, by the
   * first failure, and returned.
   */
  async markFirstFailure(invoiceId: string, at: Date, transaction: Transaction): Promise<Date> {
    const [row] = await InvoiceModel.sequelize!.query<{ first_failed_at: Date }>(
      `UPDATE invoices SET first_failed_at = COALESCE(first_failed_at, $2) WHERE id = $1 RETURNING first_failed_at`,
      { bind: [invoiceId, at], transaction, type: QueryTypes.SELECT },
    );
    return new Date(row.first_failed_at);
  }

  /**
   * A failed charge attempt (or one never made): the attempts counted so far and when the invoice
   * is charged next (null: not again).
   */
  async recordFailedAttempt(
    invoice: InvoiceModel,
    attempt: number,
    nextPaymentAttempt: Date | null,
    at: Date,
    transaction: Transaction,
  ): Promise<void> {
    await invoice.update(
      { attemptCount: Math.max(invoice.attemptCount, attempt), nextPaymentAttempt, updatedAt: at },
      { transaction },
    );
  }

  /** OPEN -> VOID: nobody is charged for it any more. */
  async markVoid(invoice: InvoiceModel, at: Date, transaction: Transaction): Promise<void> {
    await invoice.update({ status: 'VOID', nextPaymentAttempt: null, updatedAt: at }, { transaction });
  }

  /** Its dunning schedule is used up unpaid: the subscription is cancelled with it. */
  async markUncollectible(invoice: InvoiceModel, at: Date, transaction: Transaction): Promise<void> {
    await invoice.update({ status: 'UNCOLLECTIBLE', updatedAt: at }, { transaction });
  }

  /** 404 unknown or of the other mode, 403 another project's (docs/api-behaviour.md §1). */
  get(scope: ProjectScope, id: string): Promise<InvoiceModel> {
    return findInScope(InvoiceModel, scope, id, 'Invoice');
  }

  find(id: string, transaction?: Transaction): Promise<InvoiceModel | null> {
    return InvoiceModel.findByPk(id, { transaction });
  }

  /** The invoice locked until commit (a charge's claim or outcome, a void). */
  lock(id: string, transaction: Transaction): Promise<InvoiceModel | null> {
    return InvoiceModel.findByPk(id, { transaction, lock: transaction.LOCK.UPDATE });
  }

  /** Several invoices by id (rows the caller has locked), in no particular order. */
  findMany(ids: string[], transaction?: Transaction): Promise<InvoiceModel[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return InvoiceModel.findAll({ where: { id: ids }, transaction });
  }

  /** One page of the scope's invoices, newest first. */
  list(
    scope: ProjectScope,
    page: PageRequest,
    filter: { status?: InvoiceStatus; customerId?: string; subscriptionId?: string },
  ): Promise<InvoiceModel[]> {
    const where = {
      ...scopeWhere(scope),
      ...(filter.status ? { status: filter.status } : {}),
      ...(filter.customerId ? { customerId: filter.customerId } : {}),
      ...(filter.subscriptionId ? { subscriptionId: filter.subscriptionId } : {}),
    } as WhereOptions;
    return findPage(InvoiceModel, where, page);
  }

  /**
   * The invoice of a subscription's current period opened since `since` (an interrupted resume
   * of a pause), OPEN or PAID.
   */
  findOpenedSince(
    subscriptionId: string,
    periodStart: Date,
    since: Date,
    transaction?: Transaction,
  ): Promise<InvoiceModel | null> {
    return InvoiceModel.findOne({
      where: { subscriptionId, periodStart, status: ['OPEN', 'PAID'], createdAt: { [Op.gte]: since } },
      transaction,
    });
  }

  /** The lines of several invoices, each invoice's in position order (an invoice page's view). */
  linesOfMany(invoiceIds: string[], transaction?: Transaction): Promise<InvoiceLineModel[]> {
    if (invoiceIds.length === 0) return Promise.resolve([]);
    return InvoiceLineModel.findAll({
      where: { invoiceId: invoiceIds },
      order: [['position', 'ASC']],
      transaction,
    });
  }

  /** Takes invoices off the charge schedule (a charge of each is in flight). */
  async unschedule(invoices: InvoiceModel[], transaction: Transaction): Promise<void> {
    if (invoices.length === 0) return;
    await InvoiceModel.sequelize!.query('UPDATE invoices SET next_payment_attempt = NULL WHERE id = ANY($1::uuid[])', {
      bind: [invoices.map((invoice) => invoice.id)],
      transaction,
    });
    // The caller's instances say what the row now says.
    for (const invoice of invoices) invoice.set('nextPaymentAttempt', null, { raw: true });
  }

  /**
   * The invoice of one period of a subscription (at most one: the unique index
   * invoices_one_per_period); a plan change's invoice for a new period (another interval, §18)
   * when the change started the period.
   */
  findForPeriod(subscriptionId: string, periodStart: Date, transaction?: Transaction): Promise<InvoiceModel | null> {
    return InvoiceModel.findOne({
      where: { subscriptionId, periodStart },
      order: [['createdAt', 'ASC']],
      transaction,
    });
  }

  /**
   * The money of the invoices that bill (part of) a period: those whose own period lies within
   * it (its opening invoice and the invoices of plan changes made in it), with their lines, for
   * P (domain/period-payment.ts).
   */
  async moneyOfPeriod(
    subscriptionId: string,
    period: { start: Date; end: Date },
    transaction?: Transaction,
  ): Promise<(PeriodInvoiceMoney & { id: string })[]> {
    const invoices = await InvoiceModel.findAll({
      where: {
        subscriptionId,
        periodStart: { [Op.gte]: period.start },
        periodEnd: { [Op.lte]: period.end },
      },
      attributes: ['id', 'status', 'amount', 'amountRefunded'],
      transaction,
    });
    const lines = await this.linesOfMany(
      invoices.map((invoice) => invoice.id),
      transaction,
    );
    return invoices.map((invoice) => ({
      id: invoice.id,
      status: invoice.status,
      amount: invoice.amount,
      amountRefunded: invoice.amountRefunded,
      lines: lines
        .filter((line) => line.invoiceId === invoice.id)
        .map((line) => ({ type: line.type, amount: line.amount })),
    }));
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

  /**
   * An OPEN invoice of the subscription, if it has one: of an ACTIVE or TRIALING subscription,
   * one whose charge is in flight (a plan change's, or the period's renewal: a failed charge
   * makes the subscription PAST_DUE), §18.
   */
  findOpenOfSubscription(subscriptionId: string, transaction?: Transaction): Promise<InvoiceModel | null> {
    return InvoiceModel.findOne({ where: { subscriptionId, status: 'OPEN' }, transaction });
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
