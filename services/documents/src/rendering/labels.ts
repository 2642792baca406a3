import type {
  CreditNoteReason,
  CreditNoteRefundTarget,
  DocumentLocale,
  InvoiceStatus,
} from '../domain/invoice-document';

/**
 * The words around a document's figures, in each language a customer may prefer
 * (docs/api-behaviour.md §22).
 */
export interface DocumentLabels {
  invoice: string;
  creditNote: string;
  number: string;
  issueDate: string;
  period: string;
  status: string;
  currency: string;
  from: string;
  billTo: string;
  taxId: string;
  description: string;
  quantity: string;
  unitAmount: string;
  amount: string;
  subtotal: string;
  discount: string;
  inclusive: string;
  total: string;
  creditApplied: string;
  amountPaid: string;
  amountDue: string;
  creditNotes: string;
  invoiceNumber: string;
  reason: string;
  refundTo: string;
  creditAgainst: string;
  ofWhich: string;
  totalCredited: string;
  memo: string;
  statuses: Record<InvoiceStatus, string>;
  reasons: Record<CreditNoteReason, string>;
  refundTargets: Record<CreditNoteRefundTarget, string>;
}

const EN: DocumentLabels = {
  invoice: 'Invoice',
  creditNote: 'Credit note',
  number: 'Number',
  issueDate: 'Issue date',
  period: 'Period',
  status: 'Status',
  currency: 'Currency',
  from: 'From',
  billTo: 'Bill to',
  taxId: 'Tax ID',
  description: 'Description',
  quantity: 'Qty',
  unitAmount: 'Unit price',
  amount: 'Amount',
  subtotal: 'Subtotal',
  discount: 'Discount',
  inclusive: 'incl.',
  total: 'Total',
  creditApplied: 'Credit applied',
  amountPaid: 'Amount paid',
  amountDue: 'Amount due',
  creditNotes: 'Refunds and credit notes',
  invoiceNumber: 'Invoice',
  reason: 'Reason',
  refundTo: 'Refunded to',
  creditAgainst: 'Credit against invoice',
  ofWhich: 'of which',
  totalCredited: 'Total credited',
  memo: 'Memo',
  statuses: { DRAFT: 'Draft', OPEN: 'Open', PAID: 'Paid', VOID: 'Void', UNCOLLECTIBLE: 'Uncollectible' },
  reasons: {
    DUPLICATE: 'Duplicate',
    FRAUDULENT: 'Fraudulent',
    ORDER_CHANGE: 'Order change',
    PRODUCT_UNSATISFACTORY: 'Product unsatisfactory',
  },
  refundTargets: { CARD: 'Card', BALANCE: 'Customer balance' },
};

const FR: DocumentLabels = {
  invoice: 'Facture',
  creditNote: 'Avoir',
  number: 'Numéro',
  issueDate: "Date d'émission",
  period: 'Période',
  status: 'Statut',
  currency: 'Devise',
  from: 'De',
  billTo: 'Facturé à',
  taxId: 'Identifiant fiscal',
  description: 'Description',
  quantity: 'Qté',
  unitAmount: 'Prix unitaire',
  amount: 'Montant',
  subtotal: 'Sous-total',
  discount: 'Remise',
  inclusive: 'incl.',
  total: 'Total',
  creditApplied: 'Crédit appliqué',
  amountPaid: 'Montant payé',
  amountDue: 'Montant dû',
  creditNotes: 'Remboursements et avoirs',
  invoiceNumber: 'Facture',
  reason: 'Motif',
  refundTo: 'Remboursé sur',
  creditAgainst: 'Avoir sur la facture',
  ofWhich: 'dont',
  totalCredited: 'Total crédité',
  memo: 'Note',
  statuses: { DRAFT: 'Brouillon', OPEN: 'Ouverte', PAID: 'Payée', VOID: 'Annulée', UNCOLLECTIBLE: 'Irrécouvrable' },
  reasons: {
    DUPLICATE: 'Doublon',
    FRAUDULENT: 'Frauduleux',
    ORDER_CHANGE: 'Commande modifiée',
    PRODUCT_UNSATISFACTORY: 'Produit insatisfaisant',
  },
  refundTargets: { CARD: 'Carte', BALANCE: 'Solde client' },
};

const LABELS: Record<DocumentLocale, DocumentLabels> = { en: EN, fr: FR };

export function labelsFor(locale: DocumentLocale): DocumentLabels {
  return LABELS[locale];
}
