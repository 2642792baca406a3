import type { Transaction, WhereOptions } from 'sequelize';
import type { PageRequest, ProjectScope, RowScope } from '@billing/platform';
import { findInScope, findPage, scopeWhere } from '@billing/platform';
import type {
  CreditNoteDestination,
  CreditNoteReason,
  EarlierCreditNotes,
  RateAmount,
} from '../../domain/credit-notes';
import { CreditNoteModel } from '../models';

export interface NewCreditNote {
  id: string;
  invoiceId: string;
  customerId: string;
  number: string;
  amount: number;
  currency: string;
  tax: RateAmount[];
  reason: CreditNoteReason;
  refundTo: CreditNoteDestination;
  refundId: string | null;
  balanceTransactionId: string | null;
  memo: string | null;
  /** The project's time. */
  createdAt: Date;
  /** The note of a second payment of the invoice (§23): outside the invoice's own limits. */
  creditsSecondPayment?: boolean;
}

/** What an invoice view shows of each of its notes. */
export interface CreditNoteSummary {
  id: string;
  number: string;
  amount: number;
}

/** Credit notes (docs/api-behaviour.md §23). Written once; nothing updates a note. */
export class CreditNoteRepository {
  /** In the caller's transaction, which holds the invoice's row lock (its number is taken there). */
  create(scope: RowScope, note: NewCreditNote, transaction: Transaction): Promise<CreditNoteModel> {
    const tax = note.tax.map((t) => ({ tax_rate_id: t.taxRateId, amount: t.amount }));
    const row = {
      ...note,
      tax,
      creditsSecondPayment: note.creditsSecondPayment ?? false,
      projectId: scope.projectId,
      livemode: scope.livemode,
      status: 'ISSUED',
    };
    return CreditNoteModel.create(row, { transaction });
  }

  /**
   * The notes an invoice has, summed: how many (every note takes a number), their amounts and
   * their tax per rate (the notes of second payments apart: they credit those payments, not the
   * invoice, docs/api-behaviour.md §23). Read under the invoice's lock by whoever issues the next
   * one, so the sum it checks is the sum it adds to.
   */
  async earlierOf(invoiceId: string, transaction?: Transaction): Promise<EarlierCreditNotes> {
    const all = await CreditNoteModel.findAll({
      attributes: ['amount', 'tax', 'creditsSecondPayment'],
      where: { invoiceId },
      transaction,
    });
    const notes = all.filter((note) => !note.creditsSecondPayment);
    const taxes = new Map<string, number>();
    for (const note of notes) {
      for (const t of note.tax) taxes.set(t.tax_rate_id, (taxes.get(t.tax_rate_id) ?? 0) + Number(t.amount));
    }
    return {
      count: all.length,
      amount: notes.reduce((total, note) => total + note.amount, 0),
      taxes: [...taxes].map(([taxRateId, amount]) => ({ taxRateId, amount })),
    };
  }

  /** The notes of several invoices (a page of invoice views), each invoice's oldest first. */
  async summariesOf(invoiceIds: string[], transaction?: Transaction): Promise<Map<string, CreditNoteSummary[]>> {
    const byInvoice = new Map<string, CreditNoteSummary[]>();
    if (invoiceIds.length === 0) return byInvoice;
    const notes = await CreditNoteModel.findAll({
      attributes: ['id', 'invoiceId', 'number', 'amount', 'createdAt'],
      where: { invoiceId: invoiceIds },
      order: [
        ['createdAt', 'ASC'],
        ['number', 'ASC'],
      ],
      transaction,
    });
    for (const note of notes) {
      const summary = { id: note.id, number: note.number, amount: note.amount };
      const list = byInvoice.get(note.invoiceId);
      if (list) list.push(summary);
      else byInvoice.set(note.invoiceId, [summary]);
    }
    return byInvoice;
  }

  /** 404 unknown or of the other mode, 403 another project's (docs/api-behaviour.md §1). */
  get(scope: ProjectScope, id: string): Promise<CreditNoteModel> {
    return findInScope(CreditNoteModel, scope, id, 'Credit note');
  }

  find(id: string, transaction?: Transaction): Promise<CreditNoteModel | null> {
    return CreditNoteModel.findByPk(id, { transaction });
  }

  /** One page of the scope's notes, newest first. */
  list(scope: ProjectScope, page: PageRequest, filter: { invoiceId?: string; customerId?: string }) {
    const where = {
      ...scopeWhere(scope),
      ...(filter.invoiceId ? { invoiceId: filter.invoiceId } : {}),
      ...(filter.customerId ? { customerId: filter.customerId } : {}),
    } as WhereOptions;
    return findPage(CreditNoteModel, where, page);
  }
}
