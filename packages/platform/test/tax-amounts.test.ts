import { netOfInclusiveTax, NO_TAX, taxAmountsOf, type InvoiceTax } from '@billing/platform';
import { taxedBy, taxRateOf } from '@billing/testing';

// docs/api-behaviour.md §21: the tax of each rate on a taxable amount, and the amount less its
// inclusive taxes (an invoice's total excluding tax; a subscription's MRR before it is normalised, §25).

const rate = taxRateOf;
const taxed = taxedBy;

describe('netOfInclusiveTax', () => {
  it.each<[string, number, InvoiceTax, number]>([
    ['no rates', 10000, NO_TAX, 10000],
    ['exclusive 7.5%: nothing comes out', 10000, taxed(rate('7.5', false)), 10000],
    ['inclusive 7.5% of 10750: 750', 10750, taxed(rate('7.5', true)), 10000],
    ['inclusive 7.5% of 10000: 697.67 rounds to 698', 10000, taxed(rate('7.5', true)), 9302],
    ['inclusive 5% and 2.5% of 10750: 500 and 250', 10750, taxed(rate('5', true), rate('2.5', true)), 10000],
    ['inclusive 7.5% of -10750 (a credit): -750', -10750, taxed(rate('7.5', true)), -10000],
    ['an EXEMPT customer: the price is all net', 10750, { rates: [rate('7.5', true)], exempt: 'EXEMPT' }, 10750],
    ['a REVERSE customer likewise', 10750, { rates: [rate('7.5', true)], exempt: 'REVERSE' }, 10750],
  ])('%s', (_, taxable, tax, expected) => {
    expect(netOfInclusiveTax(taxable, tax)).toBe(expected);
  });

  it('is the taxable less the inclusive amounts taxAmountsOf rounds, each once', () => {
    // 3 inclusive rates whose shares each round up: 1000 x 1/103 = 9.71 -> 10, three times.
    const tax = taxed(rate('1', true), rate('1', true), rate('1', true));
    expect(taxAmountsOf(1000, tax).map((t) => t.amount)).toEqual([10, 10, 10]);
    expect(netOfInclusiveTax(1000, tax)).toBe(970);
  });
});
