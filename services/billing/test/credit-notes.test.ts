import { DomainError } from '@billing/platform';
import {
  creditNoteNumber,
  creditNoteRefusal,
  creditNoteTaxes,
  validateCreditNoteRequest,
  type CreditedInvoice,
  type EarlierCreditNotes,
} from '../src/domain/credit-notes';

/** §21's first worked example, paid: 8,062.50 NGN of which 562.50 is 7.5% exclusive VAT. */
const vatInvoice: CreditedInvoice = {
  number: 'ACME-0007',
  status: 'PAID',
  currency: 'NGN',
  amount: 806_250,
  amountPaid: 806_250,
  amountRefunded: 0,
  taxes: [{ taxRateId: 'vat', amount: 56_250 }],
};

/** 10,000.00 net with 10% and 5% exclusive rates: 11,500.00. */
const twoRates: CreditedInvoice = {
  number: 'ACME-0008',
  status: 'PAID',
  currency: 'NGN',
  amount: 1_150_000,
  amountPaid: 1_150_000,
  amountRefunded: 0,
  taxes: [
    { taxRateId: 'state', amount: 100_000 },
    { taxRateId: 'city', amount: 50_000 },
  ],
};

const none: EarlierCreditNotes = { count: 0, amount: 0, taxes: [] };

describe('the tax a credit note carries back (hand-worked)', () => {
  it.each<[string, CreditedInvoice, EarlierCreditNotes, number, { taxRateId: string; amount: number }[]]>([
    // 56,250 x 100,000 / 806,250 = 6,976.74... -> 6,977
    ['a share of the one rate, rounded once', vatInvoice, none, 100_000, [{ taxRateId: 'vat', amount: 6_977 }]],
    ['the whole invoice: all of its tax', vatInvoice, none, 806_250, [{ taxRateId: 'vat', amount: 56_250 }]],
    // 100,000 x 383,333 / 1,150,000 = 33,333.30 -> 33,333; 50,000 x ... = 16,666.65 -> 16,667
    [
      'a third of an invoice with two rates: each rate its own share',
      twoRates,
      none,
      383_333,
      [
        { taxRateId: 'state', amount: 33_333 },
        { taxRateId: 'city', amount: 16_667 },
      ],
    ],
    [
      'the note that closes the invoice takes exactly what remains of each rate',
      twoRates,
      {
        count: 1,
        amount: 383_333,
        taxes: [
          { taxRateId: 'state', amount: 33_333 },
          { taxRateId: 'city', amount: 16_667 },
        ],
      },
      766_667,
      [
        { taxRateId: 'state', amount: 66_667 },
        { taxRateId: 'city', amount: 33_333 },
      ],
    ],
    [
      'an exact half rounds away from zero',
      { ...vatInvoice, amount: 200, amountPaid: 200, taxes: [{ taxRateId: 'vat', amount: 3 }] },
      none,
      100,
      [{ taxRateId: 'vat', amount: 2 }],
    ],
    ['an untaxed invoice: no tax on its notes', { ...vatInvoice, taxes: [] }, none, 100_000, []],
  ])('%s', (_what, invoice, earlier, amount, expected) => {
    expect(creditNoteTaxes(invoice, earlier, amount)).toEqual(expected);
  });

  it('notes that credit a whole invoice in parts carry back exactly the tax it bore', () => {
    let earlier: EarlierCreditNotes = none;
    for (const part of [100_001, 250_000, 333_333, 466_666]) {
      const taxes = creditNoteTaxes(twoRates, earlier, part);
      earlier = {
        count: earlier.count + 1,
        amount: earlier.amount + part,
        taxes: taxes.map((t) => ({
          taxRateId: t.taxRateId,
          amount: t.amount + (earlier.taxes.find((e) => e.taxRateId === t.taxRateId)?.amount ?? 0),
        })),
      };
    }
    expect(earlier.amount).toBe(twoRates.amount);
    expect(earlier.taxes).toEqual(twoRates.taxes);
  });
});

describe('what a credit note may credit', () => {
  it.each<[string, CreditedInvoice, EarlierCreditNotes, number, 'CARD' | 'BALANCE', string | null]>([
    ['the whole of a paid invoice to the card', vatInvoice, none, 806_250, 'CARD', null],
    ['not an OPEN invoice', { ...vatInvoice, status: 'OPEN' }, none, 100, 'BALANCE', 'Only a PAID invoice'],
    [
      'never above the invoice amount, all notes together',
      vatInvoice,
      { count: 1, amount: 800_000, taxes: [] },
      6_251,
      'BALANCE',
      '62.50 NGN remain to credit',
    ],
    [
      'exactly what remains of the invoice amount',
      vatInvoice,
      { count: 1, amount: 800_000, taxes: [] },
      6_250,
      'BALANCE',
      null,
    ],
    [
      'to the card never above what was paid less what was refunded',
      { ...vatInvoice, amountRefunded: 706_250 },
      none,
      100_001,
      'CARD',
      '1000.00 NGN remain',
    ],
    [
      'to the balance beyond what the card could get back, within the invoice amount',
      { ...vatInvoice, amountPaid: 406_250 },
      none,
      806_250,
      'BALANCE',
      null,
    ],
    [
      'to the card of an invoice the balance paid in part: only what the card paid',
      { ...vatInvoice, amountPaid: 406_250 },
      none,
      406_251,
      'CARD',
      '4062.50 NGN remain',
    ],
  ])('%s', (_what, invoice, earlier, amount, refundTo, refusal) => {
    const answer = creditNoteRefusal(invoice, earlier, amount, refundTo);
    if (refusal === null) expect(answer).toBeNull();
    else expect(answer).toContain(refusal);
  });
});

describe('a credit note number', () => {
  it.each([
    [0, 'ACME-0007-CN1'],
    [1, 'ACME-0007-CN2'],
    [11, 'ACME-0007-CN12'],
  ])('after %i notes of the invoice: %s', (earlierCount, expected) => {
    expect(creditNoteNumber('ACME-0007', earlierCount)).toBe(expected);
  });
});

describe('a credit note request as billing accepts it', () => {
  const valid = { amount: 100, reason: 'ORDER_CHANGE', refundTo: 'CARD', memo: '  Wrong seat count  ' };

  it('a valid one, its memo trimmed (blank: none)', () => {
    expect(validateCreditNoteRequest(valid)).toEqual({ ...valid, memo: 'Wrong seat count' });
    expect(validateCreditNoteRequest({ ...valid, memo: '   ' }).memo).toBeNull();
  });

  it.each<[string, Partial<typeof valid> & { amount?: number }, (string | number)[]]>([
    ['an amount of 0', { amount: 0 }, ['body', 'amount']],
    ['a negative amount', { amount: -5 }, ['body', 'amount']],
    ['a fraction of a minor unit', { amount: 1.5 }, ['body', 'amount']],
    ['an unknown reason', { reason: 'CHANGED_MIND' }, ['body', 'reason']],
    ['an unknown destination', { refundTo: 'WALLET' }, ['body', 'refund_to']],
    ['a memo over 500 characters', { memo: 'x'.repeat(501) }, ['body', 'memo']],
  ])('refuses %s, naming the field', (_what, change, loc) => {
    let error: unknown;
    try {
      validateCreditNoteRequest({ ...valid, ...change });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).violations.map((v) => v.loc)).toEqual([loc]);
  });
});
