import { DomainError, hashOf, isTokenShaped, newToken } from '@billing/platform';
import { billingDetailsOf } from '../src/domain/billing-details';
import { DEFAULT_SETTINGS, isReturnUrl, parseSettings } from '../src/domain/portal-configuration';
import { isAlive, linkExpiry } from '../src/domain/session-tokens';

/** The portal's pure rules (docs/api-behaviour.md §24). */
describe('portal configuration rules', () => {
  const valid = {
    cancellation: 'IMMEDIATELY',
    planChangeEnabled: true,
    planChangePlanIds: ['a', 'b', 'a'],
    planChangeProration: 'NONE',
    paymentMethodUpdate: false,
    billingDetailsUpdate: true,
    headline: '  Hello  ',
    returnUrlDefault: 'https://acme.example.com/account',
  };

  it('keeps a valid configuration, its plans once each and its headline trimmed', () => {
    expect(parseSettings(valid)).toEqual({
      cancellation: 'IMMEDIATELY',
      planChangeEnabled: true,
      planChangePlanIds: ['a', 'b'],
      planChangeProration: 'NONE',
      paymentMethodUpdate: false,
      billingDetailsUpdate: true,
      headline: 'Hello',
      returnUrlDefault: 'https://acme.example.com/account',
    });
  });

  it.each([
    ['an unknown cancellation', { cancellation: 'LATER' }, ['body', 'cancellation']],
    ['an unknown proration', { planChangeProration: 'HALF' }, ['body', 'plan_change', 'proration']],
    ['one plan with changes enabled', { planChangePlanIds: ['a'] }, ['body', 'plan_change', 'plan_ids']],
    ['more than ten plans', { planChangePlanIds: [...'abcdefghijk'] }, ['body', 'plan_change', 'plan_ids']],
    ['a headline over 100 characters', { headline: 'x'.repeat(101) }, ['body', 'headline']],
    ['a script return URL', { returnUrlDefault: 'javascript:alert(1)' }, ['body', 'return_url_default']],
  ])('refuses %s, naming the field', (_what, change, loc) => {
    let error: unknown;
    try {
      parseSettings({ ...valid, ...change });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).violations.map((v) => v.loc)).toContainEqual(loc);
  });

  it('has the contract defaults: cancel at period end, plan changes off, both updates on', () => {
    expect(DEFAULT_SETTINGS).toMatchObject({
      cancellation: 'AT_PERIOD_END',
      planChangeEnabled: false,
      paymentMethodUpdate: true,
      billingDetailsUpdate: true,
    });
  });

  it.each([
    ['https://acme.example.com/x', true],
    ['http://localhost:3000/back', true],
    ['ftp://acme.example.com', false],
    ['/relative', false],
    ['javascript:alert(1)', false],
  ])('a return URL %s is %s', (url, ok) => {
    expect(isReturnUrl(url)).toBe(ok);
  });
});

describe('portal session tokens', () => {
  it('are 256 random bits in 43 base64url characters, never the same twice, kept as their SHA-256', () => {
    const tokens = new Set(Array.from({ length: 1000 }, newToken));
    expect(tokens.size).toBe(1000);
    for (const token of [...tokens].slice(0, 10)) {
      expect(isTokenShaped(token)).toBe(true);
      expect(Buffer.from(token, 'base64url')).toHaveLength(32);
      expect(hashOf(token)).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(isTokenShaped('short')).toBe(false);
    expect(isTokenShaped(`${newToken()}/`)).toBe(false);
  });

  it('a link lives its lifetime from creation; a browser session while used within its idle time', () => {
    const created = new Date('2026-03-02T09:15:00Z');
    expect(linkExpiry(created, 600).toISOString()).toBe('2026-03-02T09:25:00.000Z');
    expect(isAlive(created, new Date('2026-03-02T10:14:59Z'), 3600)).toBe(true);
    expect(isAlive(created, new Date('2026-03-02T10:15:00Z'), 3600)).toBe(false);
  });
});

describe('the billing details form', () => {
  it('sends every field, trimmed, the country upper-cased', () => {
    expect(
      billingDetailsOf({
        name: ' Ada ',
        line1: '12 Marina',
        city: 'Lagos',
        country: 'ng',
        tax_id: ' NG-1 ',
        line2: '',
      }),
    ).toEqual({
      name: 'Ada',
      address: { line1: '12 Marina', city: 'Lagos', country: 'NG' },
      taxId: 'NG-1',
    });
  });

  it('clears an empty address and tax ID, and leaves an empty name as it is', () => {
    expect(billingDetailsOf({ name: '', line1: ' ', tax_id: '' })).toEqual({
      name: undefined,
      address: null,
      taxId: null,
    });
  });
});
