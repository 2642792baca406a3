import {
  NO_TAX,
  totalInvoice,
  type ChargeLine,
  type InvoiceDiscount,
  type InvoiceTax,
  type InvoiceTaxRate,
  type TaxExempt,
} from '../src/domain/invoice-totals';

const percent = (value: string): InvoiceDiscount => ({ percentOff: value, amountOff: null, description: `${value}%` });
const fixed = (minor: number): InvoiceDiscount => ({ percentOff: null, amountOff: minor, description: 'Fixed' });
const sub = (amount: number): ChargeLine => ({ type: 'SUBSCRIPTION', amount });
const usage = (amount: number): ChargeLine => ({ type: 'USAGE', amount });
const fee = (amount: number): ChargeLine => ({ type: 'FEE', amount });
const proration = (amount: number): ChargeLine => ({ type: 'PRORATION', amount });

/**
 * One invoice's money, worked out by hand (minor units): the discount on the SUBSCRIPTION and
 * USAGE lines, then the customer's balance, then what the card is charged (docs/api-behaviour.md
 * §19, §20), with no tax rate. Columns: subtotal, discount, amount, credit applied, amount due,
 * credit to balance.
 */
describe('totalInvoice without tax: discount, then balance, then the charge', () => {
  it.each<[string, ChargeLine[], InvoiceDiscount | null, number, [number, number, number, number, number, number]]>([
    [
      'no discount, no balance: the card pays it all',
      [sub(1_000_000)],
      null,
      0,
      [1_000_000, 0, 1_000_000, 0, 1_000_000, 0],
    ],
    // The §20 example: 10,000 NGN plan, 3,000 NGN of credit -> the card pays 7,000.
    [
      'a balance smaller than the invoice is used up',
      [sub(1_000_000)],
      null,
      300_000,
      [1_000_000, 0, 1_000_000, 300_000, 700_000, 0],
    ],
    [
      'a balance larger than the invoice pays it all; the rest stays',
      [sub(1_000_000)],
      null,
      1_500_000,
      [1_000_000, 0, 1_000_000, 1_000_000, 0, 0],
    ],
    [
      'a balance exactly the invoice pays it all',
      [sub(1_000_000)],
      null,
      1_000_000,
      [1_000_000, 0, 1_000_000, 1_000_000, 0, 0],
    ],
    // 25% of 10,000 + 2,500 = 3,125 off.
    [
      'percent off the subscription and usage lines',
      [sub(1_000_000), usage(250_000)],
      percent('25'),
      0,
      [1_250_000, 312_500, 937_500, 0, 937_500, 0],
    ],
    // FEE is not discounted: 25% of 12,500 = 3,125; 13,000 - 3,125 = 9,875; 1,000 of credit.
    [
      'the discount before the balance; a FEE is not discounted',
      [sub(1_000_000), usage(250_000), fee(50_000)],
      percent('25'),
      100_000,
      [1_300_000, 312_500, 987_500, 100_000, 887_500, 0],
    ],
    // amount_off 200.00 is capped at the discountable 100.00; the fee is still owed.
    [
      'amount off is capped at the discountable lines',
      [sub(10_000), fee(500)],
      fixed(20_000),
      300,
      [10_500, 10_000, 500, 300, 200, 0],
    ],
    // 12.5% of 9.99 = 1.24875 -> 1.25, rounded once, half away from zero.
    [
      'a fractional percent rounds once, half away from zero',
      [sub(999)],
      percent('12.5'),
      0,
      [999, 125, 874, 0, 874, 0],
    ],
    // 50% of 10.01 = 5.005 -> 5.01.
    ['an exact half cent rounds up', [sub(1_001)], percent('50'), 0, [1_001, 501, 500, 0, 500, 0]],
    // 33.33% of 10.01 = 3.336333 -> 3.34.
    ['33.33% of 10.01', [sub(1_001)], percent('33.33'), 0, [1_001, 334, 667, 0, 667, 0]],
    [
      '100% off: nothing due, the balance is not touched',
      [sub(500_000)],
      percent('100'),
      200_000,
      [500_000, 500_000, 0, 0, 0, 0],
    ],
    // A positive PRORATION line (a new plan's remaining time) is discounted like the plan line
    // (§19): 50% of 6,000 + 4,000 = 5,000 off.
    [
      'a positive proration line is discounted',
      [proration(600_000), sub(400_000)],
      percent('50'),
      0,
      [1_000_000, 500_000, 500_000, 0, 500_000, 0],
    ],
    // The negative one (unused time, credit of what was paid) is not: 50% of the 3,000 only.
    [
      'a negative proration line is not discounted',
      [proration(-1_000_000), proration(300_000)],
      percent('50'),
      0,
      [-700_000, 150_000, -850_000, 0, 0, 850_000],
    ],
    // A downgrade: -8,000 unused + 3,000 remaining = -5,000, owed to the customer; the balance
    // they already had is not used (nothing is due).
    [
      'a negative total goes to the balance; nothing due',
      [proration(-800_000), proration(300_000)],
      null,
      500_000,
      [-500_000, 0, -500_000, 0, 0, 500_000],
    ],
    ['a negative balance counts as none', [sub(10_000)], null, -100, [10_000, 0, 10_000, 0, 10_000, 0]],
    ['no lines: nothing at all', [], percent('25'), 1_000, [0, 0, 0, 0, 0, 0]],
  ])('%s', (_name, lines, discount, balance, [subtotal, off, amount, creditApplied, amountDue, creditToBalance]) => {
    const totals = totalInvoice(lines, discount, NO_TAX, balance);
    expect(totals).toEqual({
      subtotal,
      discount: off,
      tax: 0,
      totalExcludingTax: amount,
      amount,
      taxAmounts: [],
      taxNote: null,
      creditApplied,
      amountDue,
      creditToBalance,
    });
    // What every stored invoice keeps (migration 0013's CHECKs).
    expect(totals.amount).toBe(totals.subtotal - totals.discount);
    expect(totals.amountDue).toBe(Math.max(totals.amount, 0) - totals.creditApplied);
    expect(totals.creditApplied).toBeLessThanOrEqual(Math.max(balance, 0));
  });
});

const rate = (taxRateId: string, percentage: string, inclusive: boolean, displayName = 'VAT'): InvoiceTaxRate => ({
  taxRateId,
  displayName,
  percentage,
  inclusive,
});
const VAT = rate('vat', '7.5', false);
const VAT_INCLUDED = rate('vat-incl', '7.5', true);
const LEVY = rate('levy', '5', false, 'Levy');
const taxed = (rates: InvoiceTaxRate[], exempt: TaxExempt = 'NONE'): InvoiceTax => ({ rates, exempt });

interface TaxRow {
  name: string;
  lines: ChargeLine[];
  discount: InvoiceDiscount | null;
  tax: InvoiceTax;
  balance: number;
  /** subtotal, discount, tax, total excluding tax, amount, credit applied, amount due, credit to balance. */
  money: [number, number, number, number, number, number, number, number];
  /** [taxable amount, amount] of each rate, in the rates' order. */
  perRate: [number, number][];
  taxNote?: string;
}

/**
 * The tax of an invoice (docs/api-behaviour.md §21), every row worked out by hand beside it, in
 * minor units: taxable = subtotal - discount; inclusive tax_i = taxable x p_i / (100 + P), net =
 * taxable x 100 / (100 + P), exclusive tax_e = net x p_e / 100, each rounded once, half away from
 * zero; amount = taxable + the exclusive taxes; then the balance.
 */
describe('totalInvoice with tax: discount, then tax per rate, then balance', () => {
  it.each<TaxRow>([
    {
      // §21's first example: 10,000 NGN, 25% off -> 7,500 taxable; 7.5% of 7,500 = 562.5 on top.
      name: '§21: 10,000 NGN, a 25% coupon, 7.5% exclusive VAT -> tax 562.5, amount 8,062.5',
      lines: [sub(1_000_000)],
      discount: percent('25'),
      tax: taxed([VAT]),
      balance: 0,
      money: [1_000_000, 250_000, 56_250, 750_000, 806_250, 0, 806_250, 0],
      perRate: [[750_000, 56_250]],
    },
    {
      // §21's second example: 7,500 x 7.5 / 107.5 = 523.2558... -> 523.26; 7,500 - 523.26 = 6,976.74;
      // the net 7,500 x 100 / 107.5 = 6,976.7441... -> 6,976.74.
      name: '§21: the same with 7.5% inclusive VAT -> tax 523.26, amount 7,500, total excluding tax 6,976.74',
      lines: [sub(1_000_000)],
      discount: percent('25'),
      tax: taxed([VAT_INCLUDED]),
      balance: 0,
      money: [1_000_000, 250_000, 52_326, 697_674, 750_000, 0, 750_000, 0],
      perRate: [[697_674, 52_326]],
    },
    {
      // 7.5% and 5% of 10,000 each: 750 + 500. Compounding would make the levy 5% of 10,750 = 537.5.
      name: 'two exclusive rates do not compound: each on the net',
      lines: [sub(1_000_000)],
      discount: null,
      tax: taxed([VAT, LEVY]),
      balance: 0,
      money: [1_000_000, 0, 125_000, 1_000_000, 1_125_000, 0, 1_125_000, 0],
      perRate: [
        [1_000_000, 75_000],
        [1_000_000, 50_000],
      ],
    },
    {
      // Two inclusive rates share one divisor: 11,250 x 7.5 / 112.5 = 750 and 11,250 x 5 / 112.5 = 500;
      // the net 11,250 x 100 / 112.5 = 10,000; the amount stays as priced.
      name: 'two inclusive rates do not compound either: both out of the price, on one net',
      lines: [sub(1_125_000)],
      discount: null,
      tax: taxed([VAT_INCLUDED, rate('levy-incl', '5', true, 'Levy')]),
      balance: 0,
      money: [1_125_000, 0, 125_000, 1_000_000, 1_125_000, 0, 1_125_000, 0],
      perRate: [
        [1_000_000, 75_000],
        [1_000_000, 50_000],
      ],
    },
    {
      // Inclusive 7.5% out of 10,750: 10,750 x 7.5 / 107.5 = 750, net 10,000; exclusive 5% of the
      // net (not of the price) = 500 on top: amount 11,250, total excluding tax 10,000.
      name: 'inclusive and exclusive together: the exclusive rate on the net the inclusive one leaves',
      lines: [sub(1_075_000)],
      discount: null,
      tax: taxed([VAT_INCLUDED, LEVY]),
      balance: 0,
      money: [1_075_000, 0, 125_000, 1_000_000, 1_125_000, 0, 1_125_000, 0],
      perRate: [
        [1_000_000, 75_000],
        [1_000_000, 50_000],
      ],
    },
    {
      // 5% of 10.10 = 0.505 -> 0.51 for each rate: tax 1.02 (rounding the sum, 1.01, would not be
      // one rounding per rate).
      name: 'each rate rounds once, half away from zero, on its own',
      lines: [sub(1_010)],
      discount: null,
      tax: taxed([rate('a', '5', false, 'A'), rate('b', '5', false, 'B')]),
      balance: 0,
      money: [1_010, 0, 102, 1_010, 1_112, 0, 1_112, 0],
      perRate: [
        [1_010, 51],
        [1_010, 51],
      ],
    },
    {
      // -10.10 at 5% = -0.505 -> -0.51 each (away from zero); -10.10 - 1.02 = -11.12 to the balance.
      name: 'a negative taxable rounds away from zero too',
      lines: [proration(-1_010)],
      discount: null,
      tax: taxed([rate('a', '5', false, 'A'), rate('b', '5', false, 'B')]),
      balance: 0,
      money: [-1_010, 0, -102, -1_010, -1_112, 0, 0, 1_112],
      perRate: [
        [-1_010, -51],
        [-1_010, -51],
      ],
    },
    {
      // 12.3456% of 100.00 = 12.3456 -> 12.35.
      name: 'a rate with four decimals',
      lines: [sub(10_000)],
      discount: null,
      tax: taxed([rate('fine', '12.3456', false)]),
      balance: 0,
      money: [10_000, 0, 1_235, 10_000, 11_235, 0, 11_235, 0],
      perRate: [[10_000, 1_235]],
    },
    {
      name: 'a 0% rate is listed with 0',
      lines: [sub(10_000)],
      discount: null,
      tax: taxed([rate('zero', '0', false, 'Zero-rated')]),
      balance: 0,
      money: [10_000, 0, 0, 10_000, 10_000, 0, 10_000, 0],
      perRate: [[10_000, 0]],
    },
    {
      // 10,750 with tax; 3,000 of credit -> 7,750 to the card.
      name: 'the balance pays the total with its tax',
      lines: [sub(1_000_000)],
      discount: null,
      tax: taxed([VAT]),
      balance: 300_000,
      money: [1_000_000, 0, 75_000, 1_000_000, 1_075_000, 300_000, 775_000, 0],
      perRate: [[1_000_000, 75_000]],
    },
    {
      // 25% off 10,000 + usage 2,500 = 3,125 off; the FEE is taxed but not discounted:
      // taxable 13,000 - 3,125 = 9,875; 7.5% = 740.625 -> 740.63.
      name: 'usage and fees are taxed, after the discount',
      lines: [sub(1_000_000), usage(250_000), fee(50_000)],
      discount: percent('25'),
      tax: taxed([VAT]),
      balance: 0,
      money: [1_300_000, 312_500, 74_063, 987_500, 1_061_563, 0, 1_061_563, 0],
      perRate: [[987_500, 74_063]],
    },
    {
      // No tax computed: every amount 0, the amounts as priced; one entry per rate still.
      name: 'an EXEMPT customer pays no tax',
      lines: [sub(1_000_000)],
      discount: percent('25'),
      tax: taxed([VAT, LEVY], 'EXEMPT'),
      balance: 0,
      money: [1_000_000, 250_000, 0, 750_000, 750_000, 0, 750_000, 0],
      perRate: [
        [750_000, 0],
        [750_000, 0],
      ],
    },
    {
      name: 'a REVERSE customer pays no tax and the invoice says "Reverse charge"',
      lines: [sub(1_000_000)],
      discount: percent('25'),
      tax: taxed([VAT], 'REVERSE'),
      balance: 0,
      money: [1_000_000, 250_000, 0, 750_000, 750_000, 0, 750_000, 0],
      perRate: [[750_000, 0]],
      taxNote: 'Reverse charge',
    },
    {
      // An inclusive price is not reduced for an exempt customer: the amounts stay as priced.
      name: 'an EXEMPT customer with an inclusive rate pays the price as priced, no tax in it',
      lines: [sub(1_075_000)],
      discount: null,
      tax: taxed([VAT_INCLUDED], 'EXEMPT'),
      balance: 0,
      money: [1_075_000, 0, 0, 1_075_000, 1_075_000, 0, 1_075_000, 0],
      perRate: [[1_075_000, 0]],
    },
    {
      // A downgrade: -5,000 unused + 2,000 remaining = -3,000, and its 7.5%, -225, comes back too:
      // -3,225 to the balance (the credit includes the exclusive tax it bore). The balance the
      // customer had is not used: nothing is due.
      name: "a downgrade's negative taxable carries its exclusive tax back to the balance",
      lines: [proration(-500_000), proration(200_000)],
      discount: null,
      tax: taxed([VAT]),
      balance: 100_000,
      money: [-300_000, 0, -22_500, -300_000, -322_500, 0, 0, 322_500],
      perRate: [[-300_000, -22_500]],
    },
    {
      // Inclusive: -3,000 x 7.5 / 107.5 = -209.30 out of the credit, which stays -3,000.
      name: "a downgrade's negative taxable under an inclusive rate: the credit as priced, its tax negative",
      lines: [proration(-500_000), proration(200_000)],
      discount: null,
      tax: taxed([VAT_INCLUDED]),
      balance: 0,
      money: [-300_000, 0, -20_930, -279_070, -300_000, 0, 0, 300_000],
      perRate: [[-279_070, -20_930]],
    },
  ])('$name', ({ lines, discount, tax, balance, money, perRate, taxNote }) => {
    const totals = totalInvoice(lines, discount, tax, balance);
    const [subtotal, off, taxAmount, totalExcludingTax, amount, creditApplied, amountDue, creditToBalance] = money;
    expect(totals).toEqual({
      subtotal,
      discount: off,
      tax: taxAmount,
      totalExcludingTax,
      amount,
      taxAmounts: tax.rates.map((r, k) => ({ ...r, taxableAmount: perRate[k][0], amount: perRate[k][1] })),
      taxNote: taxNote ?? null,
      creditApplied,
      amountDue,
      creditToBalance,
    });
    // What every stored invoice keeps (migration 0021's CHECK): the total is the total excluding
    // tax plus the tax, and the tax the sum of the rates' amounts.
    expect(totals.amount).toBe(totals.totalExcludingTax + totals.tax);
    expect(totals.tax).toBe(totals.taxAmounts.reduce((total, t) => total + t.amount, 0));
  });
});
