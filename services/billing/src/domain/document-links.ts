import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The links of an invoice's hosted page and PDF and of a credit note's PDF
 * (docs/api-behaviour.md §22): no API key, so the link itself is the capability. A token is the
 * document's id and an HMAC-SHA256 of its kind and id under DOCUMENT_LINKS_KEY (256 bits, so no
 * one guesses one): nothing is stored, so the database holds nothing that opens a document, a
 * link lasts as long as its document, and a link of one document never opens another (its kind
 * and id are under the MAC). Checking compares in constant time. Several keys rotate: the first
 * signs, each is accepted.
 */

export type DocumentKind = 'invoice' | 'credit_note';

/** 32 hex digits of the id, then 43 characters of base64url MAC. */
const TOKEN = /^([0-9a-f]{32})([A-Za-z0-9_-]{43})$/;

const hexOf = (id: string) => id.replace(/-/g, '').toLowerCase();
const uuidOf = (hex: string) =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

export class DocumentLinks {
  constructor(
    private readonly publicUrl: string,
    private readonly keys: readonly string[],
  ) {
    if (keys.length === 0) throw new Error('DocumentLinks needs at least one key');
  }

  /** The token of a document: what its links carry. */
  tokenOf(kind: DocumentKind, id: string): string {
    const hex = hexOf(id);
    return `${hex}${this.mac(this.keys[0], kind, hex).toString('base64url')}`;
  }

  /** The id of the document `token` opens, or null: malformed, another kind's, or not signed by a key of ours. */
  idOf(kind: DocumentKind, token: string): string | null {
    const match = TOKEN.exec(token);
    if (!match) return null;
    const [, hex, mac] = match;
    const given = Buffer.from(mac, 'base64url');
    // Only the one spelling of a MAC: the last character's two spare bits must be zero, so two
    // links never open the same document.
    if (given.length !== 32 || given.toString('base64url') !== mac) return null;
    // Every key is tried, so how long the check takes says nothing about which key signed it.
    let valid = false;
    for (const key of this.keys) valid = timingSafeEqual(given, this.mac(key, kind, hex)) || valid;
    return valid ? uuidOf(hex) : null;
  }

  /** `hosted_invoice_url`. */
  invoicePage(invoiceId: string): string {
    return `${this.publicUrl}/i/${this.tokenOf('invoice', invoiceId)}`;
  }

  /** `invoice_pdf`. */
  invoicePdf(invoiceId: string): string {
    return `${this.invoicePage(invoiceId)}/pdf`;
  }

  /** Where the provider sends the payer back after a hosted "Pay" of the invoice. */
  invoicePaymentCallback(invoiceId: string): string {
    return `${this.invoicePage(invoiceId)}/callback`;
  }

  /** `credit_note_pdf`. */
  creditNotePdf(creditNoteId: string): string {
    return `${this.publicUrl}/cn/${this.tokenOf('credit_note', creditNoteId)}/pdf`;
  }

  private mac(key: string, kind: DocumentKind, hex: string): Buffer {
    return createHmac('sha256', key).update(`${kind}:${hex}`).digest();
  }
}
