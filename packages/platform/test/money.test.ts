import { hasAtMostMinorDigits, toMajorUnits, toMinorUnits } from '@billing/platform';

describe('money in minor units', () => {
  it.each([
    [5000.5, 500050],
    [0.1, 10],
    [0.29, 29],
    [1.005, NaN],
    [19.99, 1999],
    [0, 0],
    [123456789.12, 12345678912],
  ])('%p major -> %p minor', (major, minor) => {
    if (Number.isNaN(minor)) expect(() => toMinorUnits(major)).toThrow(RangeError);
    else expect(toMinorUnits(major)).toBe(minor);
  });

  it('never shows binary floating-point noise', () => {
    // 0.1 + 0.2 = 0.30000000000000004 in binary floating point: more than two decimals, refused.
    expect(hasAtMostMinorDigits(0.1 + 0.2)).toBe(false);
    expect(toMinorUnits(0.3)).toBe(30);
    expect(toMajorUnits(toMinorUnits(0.1) + toMinorUnits(0.2))).toBe(0.3);
    expect(toMajorUnits('500050')).toBe(5000.5);
    expect(toMajorUnits(1n)).toBe(0.01);
  });

  it('refuses amounts beyond safe integers and non-finite numbers', () => {
    expect(() => toMinorUnits(1e17)).toThrow(RangeError);
    expect(hasAtMostMinorDigits(Number.NaN)).toBe(false);
    expect(hasAtMostMinorDigits(Number.POSITIVE_INFINITY)).toBe(false);
  });
});
