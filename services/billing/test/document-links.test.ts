import { DocumentLinks } from '../src/domain/document-links';

const INVOICE = '3e9c1a7d-5b2f-4d8e-9a61-0c4f7b2e8d15';
const KEY = 'k'.repeat(32);
const NEW_KEY = 'n'.repeat(32);

/** The links of documents (docs/api-behaviour.md §22): pure, so every rule is checked here. */
describe('document links', () => {
  const links = new DocumentLinks('https://billing.example.com', [KEY]);

  it('an invoice link opens that invoice: its id and a 256-bit MAC on PUBLIC_URL', () => {
    const token = links.tokenOf('invoice', INVOICE);
    expect(token).toMatch(/^3e9c1a7d5b2f4d8e9a610c4f7b2e8d15[A-Za-z0-9_-]{43}$/);
    expect(links.idOf('invoice', token)).toBe(INVOICE);
    expect(links.invoicePage(INVOICE)).toBe(`https://billing.example.com/i/${token}`);
    expect(links.invoicePdf(INVOICE)).toBe(`https://billing.example.com/i/${token}/pdf`);
    expect(links.invoicePaymentCallback(INVOICE)).toBe(`https://billing.example.com/i/${token}/callback`);
  });

  it('the same document always has the same link: nothing is stored, nothing expires while it exists', () => {
    expect(new DocumentLinks('https://billing.example.com', [KEY]).tokenOf('invoice', INVOICE)).toBe(
      links.tokenOf('invoice', INVOICE),
    );
  });

  it('opens nothing for a changed character, another id under the MAC, another kind, a short or malformed token', () => {
    const token = links.tokenOf('invoice', INVOICE);
    const other = '00000000-0000-4000-8000-000000000000';
    const wrong = [
      `${token.slice(0, 40)}${token[40] === 'a' ? 'b' : 'a'}${token.slice(41)}`,
      `${other.replace(/-/g, '')}${token.slice(32)}`,
      token.slice(0, -1),
      `${token}A`,
      token.toUpperCase(),
      '',
      'not a token',
    ];
    for (const candidate of wrong) expect(links.idOf('invoice', candidate)).toBeNull();
    expect(links.idOf('credit_note', token)).toBeNull();
    expect(links.idOf('invoice', links.tokenOf('credit_note', INVOICE))).toBeNull();
  });

  it('accepts only the one spelling of a MAC: the spare bits of its last character must be zero', () => {
    const token = links.tokenOf('invoice', INVOICE);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(token[token.length - 1]);
    const sameBytes = alphabet[last ^ 1];
    expect(links.idOf('invoice', `${token.slice(0, -1)}${sameBytes}`)).toBeNull();
  });

  it('rotates keys: the first signs, every one listed opens, a key dropped opens nothing', () => {
    const old = links.tokenOf('invoice', INVOICE);
    const rotated = new DocumentLinks('https://billing.example.com', [NEW_KEY, KEY]);
    expect(rotated.idOf('invoice', old)).toBe(INVOICE);
    const fresh = rotated.tokenOf('invoice', INVOICE);
    expect(fresh).not.toBe(old);
    expect(rotated.idOf('invoice', fresh)).toBe(INVOICE);
    const dropped = new DocumentLinks('https://billing.example.com', [NEW_KEY]);
    expect(dropped.idOf('invoice', old)).toBeNull();
    expect(dropped.idOf('invoice', fresh)).toBe(INVOICE);
  });
});
