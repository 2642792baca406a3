import { totalInvoice, type ChargeLine, type InvoiceDiscount } from '../src/domain/invoice-totals';

const percent = (value: string): InvoiceDiscount => ({ percentOff: value, amountOff: null, description: `${value}%` });
const fixed = (minor: number): InvoiceDiscount => ({ percentOff: null, amountOff: minor, description: 'Fixed' });
const sub = (amount: number): ChargeLine => ({ type: 'SUBSCRIPTION', amount });
const usage = (amount: number): ChargeLine => ({ type: 'USAGE', amount });
const fee = (amount: number): ChargeLine => ({ type: 'FEE', amount });
const proration = (amount: number): ChargeLine => ({ type: 'PRORATION', amount });

/**
 * One invoice's money, worked out by hand (minor units): the discount on the SUBSCRIPTION and
 * USAGE lines, then the customer's balance, then what the card is charged (docs/api-behaviour.md
 * §19, §20). Columns: subtotal, discount, amount, credit applied, amount due, credit to balance.
 */
describe('totalInvoice: discount, then balance, then the charge', () => {
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
    const totals = totalInvoice(lines, discount, balance);
    expect(totals).toEqual({ subtotal, discount: off, amount, creditApplied, amountDue, creditToBalance });
    // What every stored invoice keeps (migration 0013's CHECKs).
    expect(totals.amount).toBe(totals.subtotal - totals.discount);
    expect(totals.amountDue).toBe(Math.max(totals.amount, 0) - totals.creditApplied);
    expect(totals.creditApplied).toBeLessThanOrEqual(Math.max(balance, 0));
  });
});
