import { eventListViolations, normalizedEvents, subscribesTo } from '../src/domain/event-catalogue';
import { newWebhookSecret, SecretBox } from '../src/domain/webhook-secret';
import { isForbiddenAddress, parseWebhookUrl } from '../src/domain/webhook-url';

describe('isForbiddenAddress (SSRF guard)', () => {
  it.each([
    ['127.0.0.1', true, 'IPv4 loopback'],
    ['127.255.0.9', true, 'the whole 127/8'],
    ['::1', true, 'IPv6 loopback'],
    ['10.1.2.3', true, 'private 10/8'],
    ['172.16.0.1', true, 'private 172.16/12'],
    ['172.31.255.254', true, 'private 172.16/12, top'],
    ['192.168.1.1', true, 'private 192.168/16'],
    ['169.254.169.254', true, 'link-local, cloud metadata'],
    ['169.254.1.1', true, 'link-local'],
    ['fe80::1', true, 'IPv6 link-local'],
    ['fd00:ec2::254', true, 'AWS IPv6 metadata (unique local)'],
    ['fc00::5', true, 'IPv6 unique local'],
    ['100.64.0.1', true, 'carrier-grade NAT'],
    ['100.100.100.200', true, 'Alibaba metadata'],
    ['0.0.0.0', true, 'unspecified'],
    ['::', true, 'IPv6 unspecified'],
    ['224.0.0.1', true, 'multicast'],
    ['255.255.255.255', true, 'broadcast'],
    ['::ffff:127.0.0.1', true, 'IPv4-mapped loopback'],
    ['::ffff:10.0.0.1', true, 'IPv4-mapped private'],
    ['not-an-ip', true, 'not an address'],
    ['93.184.216.34', false, 'public IPv4'],
    ['8.8.8.8', false, 'public IPv4'],
    ['172.32.0.1', false, 'just above 172.16/12'],
    ['2606:2800:220:1:248:1893:25c8:1946', false, 'public IPv6'],
    ['::ffff:93.184.216.34', false, 'IPv4-mapped public'],
  ])('%s -> forbidden %s (%s)', (address, forbidden) => {
    expect(isForbiddenAddress(address)).toBe(forbidden);
  });
});

describe('parseWebhookUrl', () => {
  const secure = { allowInsecure: false, ports: [443] };
  it('takes https URLs', () => {
    expect(parseWebhookUrl('https://hooks.example.com/x?y=1', secure).url?.toString()).toBe(
      'https://hooks.example.com/x?y=1',
    );
  });
  it.each([
    ['http://hooks.example.com/x', 'url_scheme'],
    ['ftp://hooks.example.com/x', 'url_scheme'],
    ['not a url', 'url_parsing'],
    ['https://user:pass@hooks.example.com/x', 'url_credentials'],
    ['https://hooks.example.com:8443/x', 'url_port'],
    ['https://hooks.example.com:80/x', 'url_port'],
  ])('refuses %s with %s', (raw, type) => {
    expect(parseWebhookUrl(raw, secure).violation).toEqual({
      loc: ['body', 'url'],
      msg: expect.any(String),
      type,
      input: raw,
    });
  });
  it('takes http only when insecure webhooks are allowed', () => {
    expect(parseWebhookUrl('http://127.0.0.1:9000/hook', { allowInsecure: true, ports: [443] }).url).toBeDefined();
  });
  it('takes the ports WEBHOOK_PORTS names, 443 written or not, and says which in a refusal', () => {
    expect(parseWebhookUrl('https://hooks.example.com:443/x', secure).url).toBeDefined();
    const twoPorts = { allowInsecure: false, ports: [443, 8443] };
    expect(parseWebhookUrl('https://hooks.example.com:8443/x', twoPorts).url).toBeDefined();
    expect(parseWebhookUrl('https://hooks.example.com/x', twoPorts).url).toBeDefined();
    expect(parseWebhookUrl('https://hooks.example.com:9443/x', twoPorts).violation?.msg).toBe(
      'URL port should be 443 or 8443: webhooks are delivered to these ports only',
    );
  });
});

describe('event names', () => {
  it('takes catalogue names and "*"; refuses an empty list and unknown names by index', () => {
    expect(eventListViolations(['invoice.paid', 'subscription.cancelled'])).toEqual([]);
    expect(eventListViolations(['*'])).toEqual([]);
    expect(eventListViolations([])).toEqual([expect.objectContaining({ loc: ['body', 'events'], type: 'too_short' })]);
    expect(eventListViolations(['invoice.paid', 'invoice.exploded'])).toEqual([
      expect.objectContaining({ loc: ['body', 'events', 1], type: 'enum', input: 'invoice.exploded' }),
    ]);
  });
  it('stores "*" alone and drops duplicates; "*" receives every event', () => {
    expect(normalizedEvents(['invoice.paid', '*'])).toEqual(['*']);
    expect(normalizedEvents(['invoice.paid', 'invoice.paid', 'refund.processed'])).toEqual([
      'invoice.paid',
      'refund.processed',
    ]);
    expect(subscribesTo(['*'], 'refund.processed')).toBe(true);
    expect(subscribesTo(['invoice.paid'], 'invoice.paid')).toBe(true);
    expect(subscribesTo(['invoice.paid'], 'invoice.created')).toBe(false);
  });

  it('"*" receives no event outside the catalogue: internal events never reach merchants', () => {
    expect(subscribesTo(['*'], 'merchant.seller_details_updated')).toBe(false);
    expect(subscribesTo(['*'], 'merchant.deactivated')).toBe(false);
    expect(subscribesTo(['merchant.seller_details_updated'], 'merchant.seller_details_updated')).toBe(false);
  });
});

describe('webhook secrets', () => {
  it('are whsec_ + base64 of 32 random bytes, each new', () => {
    const a = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(a);
  });
  it('are sealed at rest: opened with the key, refused when tampered or under another key', () => {
    const box = new SecretBox(Buffer.alloc(32, 7).toString('base64'));
    const secret = newWebhookSecret();
    const sealed = box.seal(secret);
    expect(sealed).not.toContain(secret.slice(6));
    expect(box.open(sealed)).toBe(secret);
    const raw = Buffer.from(sealed, 'base64');
    raw[raw.length - 1] ^= 1;
    expect(() => box.open(raw.toString('base64'))).toThrow();
    expect(() => new SecretBox(Buffer.alloc(32, 8).toString('base64')).open(sealed)).toThrow();
    expect(() => new SecretBox(Buffer.alloc(16).toString('base64'))).toThrow(/32 bytes/);
  });
});
