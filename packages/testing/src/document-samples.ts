import type { CreditNoteDocument, DocumentSeller, InvoiceDocument } from '@billing/documents';

/**
 * Documents as the documents service renders them (services/documents), for its tests and the
 * invoice-pdf benchmark: one invoice for both, so the benchmark measures the invoice the tests
 * read back.
 */

const seller: DocumentSeller = {
  name: 'Kano Cloud Services Ltd',
  address: {
    line1: '12 Ahmadu Bello Way',
    line2: null,
    city: 'Abuja',
    state: 'FCT',
    postal_code: '900211',
    country: 'NG',
  },
  tax_id: 'TIN 12345678-0001',
};

const usageLines = Array.from({ length: 19 }, (_, index) => ({
  description: `SMS delivered, route ${String(index + 1).padStart(2, '0')}`,
  quantity: '2.5',
  unit_amount: 20_000,
  amount: 50_000,
}));

/**
 * A paid NGN invoice of 20 lines with a coupon of 25% off 10,000 (docs/api-behaviour.md §19) and
 * two taxes (§22): 7.5% VAT exclusive and a 0.5% stamp duty inclusive, with the figures billing
 * computes for them. taxable 7,500; stamp duty 7,500 x 0.5 / 100.5 = 37.31; net 7,462.69; VAT
 * 559.70; total 8,059.70. One credit note of 1,000 (`sampleCreditNote`).
 */
export function sampleInvoice(): InvoiceDocument {
  return {
    number: 'INV-000042',
    status: 'PAID',
    locale: 'en',
    currency: 'NGN',
    issued_at: '2026-11-21T10:00:00.000Z',
    period: { start: '2026-11-01T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z' },
    seller,
    buyer: {
      name: 'Adaeze Okafor',
      email: 'adaeze@example.com',
      address: {
        line1: '4 Awolowo Road',
        line2: 'Ikoyi',
        city: 'Lagos',
        state: null,
        postal_code: null,
        country: 'NG',
      },
      tax_id: null,
    },
    lines: [{ description: 'Pro plan, monthly', quantity: '1', unit_amount: 50_000, amount: 50_000 }, ...usageLines],
    subtotal: 1_000_000,
    discount: 250_000,
    taxes: [
      { display_name: 'VAT', percentage: '7.5', inclusive: false, amount: 55_970 },
      { display_name: 'Stamp duty', percentage: '0.5', inclusive: true, amount: 3_731 },
    ],
    total: 805_970,
    credit_applied: 0,
    amount_paid: 805_970,
    amount_due: 0,
    amount_refunded: 100_000,
    credit_notes: [{ number: 'INV-000042-CN1', amount: 100_000 }],
    tax_note: null,
    footer: 'Thank you for your business. Questions: billing@kanocloud.example',
  };
}

/**
 * A note crediting 1,000 of that invoice to the card: each rate's share of its tax
 * (docs/api-behaviour.md §22).
 */
export function sampleCreditNote(): CreditNoteDocument {
  return {
    number: 'INV-000042-CN1',
    invoice_number: 'INV-000042',
    locale: 'en',
    currency: 'NGN',
    issued_at: '2026-11-25T09:30:00.000Z',
    seller,
    buyer: { name: 'Adaeze Okafor', email: 'adaeze@example.com', address: null, tax_id: null },
    amount: 100_000,
    taxes: [
      { display_name: 'VAT', percentage: '7.5', inclusive: false, amount: 6_944 },
      { display_name: 'Stamp duty', percentage: '0.5', inclusive: true, amount: 463 },
    ],
    reason: 'PRODUCT_UNSATISFACTORY',
    refund_to: 'CARD',
    memo: 'Two days of outage in November',
    footer: null,
  };
}
