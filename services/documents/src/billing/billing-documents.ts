import { postalAddressOfMessage, type Currency, type ProjectScope, type PromiseClient } from '@billing/platform';
import type { billingV1, commonV1 } from '@billing/proto';
import {
  DOCUMENT_LOCALES,
  type CreditNoteDocument,
  type CreditNoteReason,
  type CreditNoteRefundTarget,
  type DocumentBuyer,
  type DocumentLocale,
  type DocumentSeller,
  type DocumentTax,
  type InvoiceDocument,
  type InvoiceStatus,
  type PostalAddress,
} from '../domain/invoice-document';

/** What documents asks of billing, which owns invoices and credit notes. */
export type BillingClient = Pick<
  PromiseClient<billingV1.BillingServiceClient>,
  | 'getInvoice'
  | 'getCreditNote'
  | 'getInvoiceByLink'
  | 'getCreditNoteByLink'
  | 'startInvoicePayment'
  | 'applyInvoicePayment'
>;

/** An invoice as its page shows it: the document, and whether "Pay" is offered (§22). */
export interface InvoicePageData {
  document: InvoiceDocument;
  payable: boolean;
}

/**
 * Documents' only source: billing over gRPC. Each answer becomes the plain document a page or PDF
 * shows (domain/invoice-document.ts), every figure billing's own. Billing's errors pass through
 * unchanged (NOT_FOUND for a wrong link or id, PERMISSION_DENIED, UNAVAILABLE).
 */
export class BillingDocuments {
  constructor(private readonly billing: BillingClient) {}

  async invoiceOfLink(token: string): Promise<InvoicePageData> {
    const { invoice } = await this.billing.getInvoiceByLink({ token });
    return pageDataOf(invoice!);
  }

  async invoice(scope: ProjectScope, invoiceId: string): Promise<InvoiceDocument> {
    const { invoice } = await this.billing.getInvoice({ scope, invoiceId });
    return invoiceDocumentOf(invoice!);
  }

  async creditNoteOfLink(token: string): Promise<CreditNoteDocument> {
    const { creditNote, invoice } = await this.billing.getCreditNoteByLink({ token });
    return creditNoteDocumentOf(creditNote!, invoice!);
  }

  async creditNote(scope: ProjectScope, creditNoteId: string): Promise<CreditNoteDocument> {
    const { creditNote } = await this.billing.getCreditNote({ scope, creditNoteId });
    const { invoice } = await this.billing.getInvoice({ scope, invoiceId: creditNote!.invoiceId });
    return creditNoteDocumentOf(creditNote!, invoice!);
  }

  /** Where to send the payer of the invoice's "Pay". */
  async startPayment(token: string): Promise<string> {
    return (await this.billing.startInvoicePayment({ token })).authorizationUrl;
  }

  /** Applies the payment the provider sent the payer back from; its outcome (billing's word). */
  async applyPayment(token: string, transactionReference: string): Promise<string> {
    return (await this.billing.applyInvoicePayment({ token, transactionReference })).outcome;
  }
}

export const pageDataOf = (invoice: billingV1.Invoice): InvoicePageData => ({
  document: invoiceDocumentOf(invoice),
  payable: invoice.status === 'OPEN' && invoice.amountDue > 0,
});

const localeOf = (value: string | undefined): DocumentLocale =>
  DOCUMENT_LOCALES.find((locale) => locale === value) ?? 'en';

const addressOf = (a: commonV1.PostalAddress | undefined): PostalAddress | null =>
  a ? postalAddressOfMessage(a) : null;

/**
 * The seller and buyer the invoice kept (docs/api-behaviour.md §22). An invoice made before
 * billing kept them has neither: its seller shows no name and its buyer the customer's e-mail.
 */
function partiesOf(invoice: billingV1.Invoice): {
  seller: DocumentSeller;
  buyer: DocumentBuyer;
  locale: DocumentLocale;
} {
  const { seller, buyer } = invoice;
  return {
    seller: { name: seller?.name ?? '', address: addressOf(seller?.address), tax_id: seller?.taxId ?? null },
    buyer: {
      name: buyer?.name ?? null,
      email: buyer?.email ?? invoice.customerEmail,
      address: addressOf(buyer?.address),
      tax_id: buyer?.taxId ?? null,
    },
    locale: localeOf(buyer?.preferredLocale),
  };
}

const taxesOf = (invoice: billingV1.Invoice): (DocumentTax & { taxRateId: string })[] =>
  invoice.totalTaxAmounts.map((t) => ({
    taxRateId: t.taxRateId,
    display_name: t.displayName,
    percentage: t.percentage,
    inclusive: t.inclusive,
    amount: t.amount,
  }));

export function invoiceDocumentOf(invoice: billingV1.Invoice): InvoiceDocument {
  return {
    number: invoice.number,
    status: invoice.status as InvoiceStatus,
    currency: invoice.currency as Currency,
    issued_at: invoice.createdAt!.toISOString(),
    period:
      invoice.periodStart && invoice.periodEnd
        ? { start: invoice.periodStart.toISOString(), end: invoice.periodEnd.toISOString() }
        : null,
    ...partiesOf(invoice),
    lines: invoice.lines.map((line) => ({
      description: line.description,
      quantity: line.quantity,
      unit_amount: line.unitAmount,
      amount: line.amount,
    })),
    subtotal: invoice.subtotal,
    discount: invoice.discount,
    taxes: taxesOf(invoice).map(({ taxRateId: _id, ...tax }) => tax),
    total: invoice.amount,
    credit_applied: invoice.creditApplied,
    amount_paid: invoice.amountPaid,
    amount_due: invoice.amountDue,
    amount_refunded: invoice.amountRefunded,
    credit_notes: invoice.creditNotes.map((note) => ({ number: note.number, amount: note.amount })),
    tax_note: invoice.taxNote ?? null,
    footer: invoice.seller?.invoiceFooter ?? null,
  };
}

/** A note with its invoice's parties and the names of the invoice's rates it carries tax of. */
export function creditNoteDocumentOf(note: billingV1.CreditNote, invoice: billingV1.Invoice): CreditNoteDocument {
  const rates = new Map(taxesOf(invoice).map((tax) => [tax.taxRateId, tax]));
  return {
    number: note.number,
    invoice_number: invoice.number,
    currency: note.currency as Currency,
    issued_at: note.createdAt!.toISOString(),
    ...partiesOf(invoice),
    amount: note.amount,
    taxes: note.tax.flatMap((t) => {
      const rate = rates.get(t.taxRateId);
      return rate
        ? [
            {
              display_name: rate.display_name,
              percentage: rate.percentage,
              inclusive: rate.inclusive,
              amount: t.amount,
            },
          ]
        : [];
    }),
    reason: note.reason as CreditNoteReason,
    refund_to: note.refundTo as CreditNoteRefundTarget,
    memo: note.memo ?? null,
    footer: invoice.seller?.invoiceFooter ?? null,
  };
}
