import { PortalLinks } from '../src/portal-links';

const claims = {
  projectId: 'ef9238db-8506-45d2-9f44-ceb035f33c2d',
  livemode: false,
  customerId: 'ac3c3ddb-4eec-4de9-840a-1b77d36a38ea',
  expiresAt: new Date('2026-12-05T00:00:00.000Z'),
};
const before = new Date('2026-12-04T23:59:59.000Z');

/** The customer portal's entry links (docs/api-behaviour.md §24). */
describe('portal entry links', () => {
  const links = new PortalLinks(['k'.repeat(32)]);

  it("open the one customer's portal of its project and mode until they expire", () => {
    const token = links.tokenOf(claims);
    expect(links.claimsOf(token, before)).toEqual(claims);
    expect(links.claimsOf(token, claims.expiresAt)).toBeNull();
  });

  it('open nothing once anything in them is changed, or under another key', () => {
    const token = links.tokenOf(claims);
    const [project, mode, customer, expires, mac] = token.split('.');
    const changed = [
      [project, '1', customer, expires, mac],
      [project, mode, `${customer.slice(0, -1)}0`, expires, mac],
      [project, mode, customer, String(Number(expires) + 1), mac],
      [project, mode, customer, expires, `${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`],
    ].map((parts) => parts.join('.'));
    for (const candidate of [...changed, '', 'nonsense', `${token}x`])
      expect(links.claimsOf(candidate, before)).toBeNull();
    expect(new PortalLinks(['o'.repeat(32)]).claimsOf(token, before)).toBeNull();
  });

  it('rotate: the first key signs, every key listed opens', () => {
    const old = links.tokenOf(claims);
    const rotated = new PortalLinks(['n'.repeat(32), 'k'.repeat(32)]);
    expect(rotated.claimsOf(old, before)).toEqual(claims);
    expect(rotated.tokenOf(claims)).not.toBe(old);
  });
});
