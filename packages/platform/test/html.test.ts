import { hashOf, html, isTokenShaped, newToken, readCookie, sameToken, SafeHtml } from '@billing/platform';

/** The pages' templates and browser-session secrets (the portal's and the dashboard's). */
describe('html templates', () => {
  it('escapes every interpolated value, keeps nested templates and lists, writes nothing for null, undefined and false', () => {
    const name = `<script>alert("x")</script> & 'quotes'`;
    const nested = [html`<b>${'a<b'}</b>`, 'c>d'];
    const empty = html`${null}${undefined}${false}${0}`;
    const paragraph = html`<p title="${name}">${name}</p>`;
    const page = html`${paragraph}${nested}${empty}`;
    expect(page).toBeInstanceOf(SafeHtml);
    expect(page.markup).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;">' +
        '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;</p><b>a&lt;b</b>c&gt;d0',
    );
  });
});

describe('browser-session tokens', () => {
  it('are 256 random bits as 43 base64url characters, kept as their SHA-256', () => {
    const token = newToken();
    expect(isTokenShaped(token)).toBe(true);
    expect(token).not.toBe(newToken());
    expect(hashOf(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(isTokenShaped(`${token.slice(0, 42)}+`)).toBe(false);
  });

  it('compare a form token with the expected one: a missing, empty, shorter or other one never matches', () => {
    const token = newToken();
    expect(sameToken(token, token)).toBe(true);
    for (const given of [undefined, '', token.slice(0, -1), newToken(), ['x'], 42]) {
      expect(sameToken(token, given)).toBe(false);
    }
    expect(sameToken('', '')).toBe(false);
    expect(sameToken(null, 'x')).toBe(false);
  });

  it('read one cookie of a Cookie header', () => {
    const header = 'a=1; dashboard_session=abc=def; other=2';
    expect(readCookie(header, 'dashboard_session')).toBe('abc=def');
    expect(readCookie(header, 'missing')).toBeUndefined();
    expect(readCookie(undefined, 'a')).toBeUndefined();
  });
});
