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
  amountRefunded: string;
  creditNotes: string;
  invoiceNumber: string;
  reason: string;
  refundTo: string;
  creditAgainst: string;
  ofWhich: string;
  totalCredited: string;
  memo: string;
  /** The hosted invoice page's own words (docs/api-behaviour.md §22). */
  page: {
    pay: string;
    downloadPdf: string;
    paid: string;
    refunded: string;
    notPaid: string;
    pending: string;
    notPayable: string;
  };
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
  amountRefunded: 'Refunded',
  creditNotes: 'Refunds and credit notes',
  invoiceNumber: 'Invoice',
  reason: 'Reason',
  refundTo: 'Refunded to',
  creditAgainst: 'Credit against invoice',
  ofWhich: 'of which',
  totalCredited: 'Total credited',
  memo: 'Memo',
  page: {
    pay: 'Pay',
    downloadPdf: 'Download PDF',
    paid: 'Thank you: your payment was received and this invoice is paid.',
    refunded: 'This invoice was already paid or closed, so your payment was not used: it has been refunded in full.',
    notPaid: 'Your payment did not go through. You can try again.',
    pending: 'Your payment is being confirmed. This page will show it as paid once it is.',
    notPayable: 'This invoice cannot be paid any more.',
  },
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
  amountRefunded: 'Remboursé',
  creditNotes: 'Remboursements et avoirs',
  invoiceNumber: 'Facture',
  reason: 'Motif',
  refundTo: 'Remboursé sur',
  creditAgainst: 'Avoir sur la facture',
  ofWhich: 'dont',
  totalCredited: 'Total crédité',
  memo: 'Note',
  page: {
    pay: 'Payer',
    downloadPdf: 'Télécharger le PDF',
    paid: 'Merci : votre paiement a été reçu et cette facture est payée.',
    refunded:
      "Cette facture était déjà payée ou close : votre paiement n'a pas été utilisé et vous a été remboursé en totalité.",
    notPaid: "Votre paiement n'a pas abouti. Vous pouvez réessayer.",
    pending: 'Votre paiement est en cours de confirmation. Cette page l’indiquera dès qu’il sera reçu.',
    notPayable: 'Cette facture ne peut plus être payée.',
  },
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
