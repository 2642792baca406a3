import { generateApiKey, hashApiKey, looksLikeApiKey } from '../src/domain/api-key';
import { signAccessToken, verifyAccessToken } from '../src/domain/access-token';
import { identityEnvSchema } from '../src/config';
import { hashPassword, PasswordHasher, scryptParams, verifyPassword } from '../src/domain/password';
import {
  sameSeller,
  sellerDetailsPatch,
  sellerName,
  withSellerPatch,
  type SellerDetails,
} from '../src/domain/seller-details';

describe('API keys', () => {
  it('are the mode prefix plus 40 base62 characters, hashed with SHA-256', () => {
    const test = generateApiKey(false);
    const live = generateApiKey(true);
    expect(test.key).toMatch(/^svc_test_[0-9A-Za-z]{40}$/);
    expect(live.key).toMatch(/^svc_live_[0-9A-Za-z]{40}$/);
    expect(test.keyHash).toBe(hashApiKey(test.key));
    expect(test.keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(test.last4).toBe(test.key.slice(-4));
    expect(generateApiKey(false).key).not.toBe(test.key);
    expect(looksLikeApiKey(test.key)).toBe(true);
    expect(looksLikeApiKey('sk_test_123')).toBe(false);
  });
});

describe('passwords', () => {
  it('are stored as salted scrypt hashes that verify only the right password', async () => {
    const stored = await hashPassword('correct horse');
    expect(stored).toMatch(/^scrypt\$131072\$8\$1\$/);
    expect(stored).not.toContain('correct horse');
    expect(await hashPassword('correct horse')).not.toBe(stored);
    expect(await verifyPassword('correct horse', stored)).toBe(true);
    expect(await verifyPassword('correct horsE', stored)).toBe(false);
    expect(await verifyPassword('anything', 'garbage')).toBe(false);
  });

  it('verify a hash made at another cost: the parameters travel with it', async () => {
    const cheap = await new PasswordHasher(4, 10).hash('correct horse');
    expect(cheap).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(await new PasswordHasher(4).verify('correct horse', cheap)).toBe(true);
    expect(await verifyPassword('correct horsE', cheap)).toBe(false);
    expect(await hashPassword('x', scryptParams(11))).toMatch(/^scrypt\$2048\$/);
  });

  describe('PASSWORD_SCRYPT_COST', () => {
    const env = { JWT_SECRET: 'x'.repeat(40) };
    const cost = (extra: Record<string, string>) => identityEnvSchema.safeParse({ ...env, ...extra });

    it('is 17 (OWASP minimum) unless set', () => {
      expect(cost({ NODE_ENV: 'production' }).data?.PASSWORD_SCRYPT_COST).toBe(17);
    });

    it('may be lowered only under NODE_ENV=test: production and development refuse to start with it', () => {
      expect(cost({ NODE_ENV: 'test', PASSWORD_SCRYPT_COST: '10' }).data?.PASSWORD_SCRYPT_COST).toBe(10);
      for (const NODE_ENV of ['production', 'development']) {
        const refused = cost({ NODE_ENV, PASSWORD_SCRYPT_COST: '16' });
        expect(refused.success).toBe(false);
        expect(refused.error?.issues[0]).toMatchObject({ path: ['PASSWORD_SCRYPT_COST'] });
      }
      expect(cost({ NODE_ENV: 'production', PASSWORD_SCRYPT_COST: '18' }).data?.PASSWORD_SCRYPT_COST).toBe(18);
    });
  });
});

describe('access tokens', () => {
  const secret = 'x'.repeat(40);
  const now = new Date('2026-11-21T10:00:00.000Z');

  it('carry sub, iat, exp (ttl later) and jti, HS256', () => {
    const token = signAccessToken('merchant-1', secret, 3600, now);
    const [header] = token.split('.');
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toMatchObject({ alg: 'HS256' });
    const claims = verifyAccessToken(token, secret, now)!;
    expect(claims.sub).toBe('merchant-1');
    expect(claims.iat).toBe(now.getTime() / 1000);
    expect(claims.exp).toBe(now.getTime() / 1000 + 3600);
    expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('are refused when expired, tampered or signed with another secret', () => {
    const token = signAccessToken('merchant-1', secret, 60, now);
    expect(verifyAccessToken(token, secret, new Date(now.getTime() + 61_000))).toBeNull();
    const [h, p, s] = token.split('.');
    const forgedPayload = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), sub: 'other' }),
    ).toString('base64url');
    expect(verifyAccessToken(`${h}.${forgedPayload}.${s}`, secret, now)).toBeNull();
    expect(verifyAccessToken(signAccessToken('merchant-1', 'y'.repeat(40), 60, now), secret, now)).toBeNull();
    expect(verifyAccessToken('not-a-token', secret, now)).toBeNull();
  });
});

describe('seller details (docs/api-behaviour.md §22)', () => {
  const none: SellerDetails = { legalName: null, address: null, taxId: null, supportEmail: null, invoiceFooter: null };
  const lagos = { line1: '1 Marina', line2: null, city: 'Lagos', state: null, postal_code: null, country: 'NG' };

  it('a change keeps what it leaves out, sets what it gives (trimmed) and clears what it names', () => {
    const current: SellerDetails = { ...none, legalName: 'Old Limited', taxId: 'TIN-1', invoiceFooter: 'Thanks' };

    const patch = sellerDetailsPatch({
      legalName: '  New Limited ',
      address: { line1: ' 1 Marina ', city: 'Lagos', country: 'NG' },
      clearedFields: ['tax_id'],
    });

    expect(withSellerPatch(current, patch)).toEqual({
      legalName: 'New Limited',
      address: lagos,
      taxId: null,
      supportEmail: null,
      invoiceFooter: 'Thanks',
    });
  });

  it.each([
    ['legal_name of 101 characters', { legalName: 'x'.repeat(101) }, ['body', 'legal_name'], 'string_too_long'],
    ['legal_name of 100 characters is fine', { legalName: 'x'.repeat(100) }, null, null],
    ['tax_id of 41 characters', { taxId: '1'.repeat(41) }, ['body', 'tax_id'], 'string_too_long'],
    [
      'invoice_footer of 501 characters',
      { invoiceFooter: 'f'.repeat(501) },
      ['body', 'invoice_footer'],
      'string_too_long',
    ],
    ['invoice_footer of 500 characters is fine', { invoiceFooter: 'f'.repeat(500) }, null, null],
    ['an empty tax_id', { taxId: '  ' }, ['body', 'tax_id'], 'string_too_short'],
    ['a support_email without a domain', { supportEmail: 'billing@' }, ['body', 'support_email'], 'value_error'],
    [
      'a country in lower case',
      { address: { ...lagos, country: 'ng' } },
      ['body', 'address', 'country'],
      'value_error',
    ],
    [
      'a country no longer assigned (YU)',
      { address: { ...lagos, country: 'YU' } },
      ['body', 'address', 'country'],
      'value_error',
    ],
    ['an empty city', { address: { ...lagos, city: '' } }, ['body', 'address', 'city'], 'string_too_short'],
    ['a field both set and cleared', { taxId: 'TIN', clearedFields: ['tax_id'] }, ['body', 'tax_id'], 'value_error'],
    ['clearing a field that is no seller detail', { clearedFields: ['email'] }, ['body', 'email'], 'value_error'],
  ])('%s', (_case, input, loc, type) => {
    const check = () => sellerDetailsPatch({ clearedFields: [], ...input });
    if (loc === null) return void expect(check).not.toThrow();
    expect(check).toThrow(
      expect.objectContaining({ kind: 'invalid_argument', violations: [expect.objectContaining({ loc, type })] }),
    );
  });

  it("names the seller by its legal name, else its business name; the same seller whatever the address's key order", () => {
    expect(sellerName('Acme Limited', 'Acme')).toBe('Acme Limited');
    expect(sellerName(null, 'Acme')).toBe('Acme');
    const stored = { country: 'NG', city: 'Lagos', line1: '1 Marina', line2: null, state: null, postal_code: null };
    expect(
      sameSeller({ ...none, businessName: 'Acme', address: stored }, { ...none, businessName: 'Acme', address: lagos }),
    ).toBe(true);
    expect(sameSeller({ ...none, businessName: 'Acme' }, { ...none, businessName: 'Acme Two' })).toBe(false);
  });
});
