import ipaddr from 'ipaddr.js';
import type { FieldViolation } from '@billing/platform';

export interface WebhookUrlPolicy {
  /** ALLOW_INSECURE_WEBHOOKS (development): http, any port and loopback/private addresses allowed. */
  allowInsecure: boolean;
  /** WEBHOOK_PORTS: the ports deliveries can leave by (443 for a URL that names none). */
  ports: readonly number[];
}

/** Cloud metadata endpoints that are not in a reserved range of their own. */
const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200']);

/**
 * Whether a webhook may not be sent to this address: anything but a public unicast address
 * (loopback, private, link-local, unique-local, carrier-grade NAT, multicast, reserved, the
 * unspecified address) and the cloud metadata endpoints. IPv4-mapped IPv6 is judged as IPv4.
 */
export function isForbiddenAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  if (METADATA_ADDRESSES.has(parsed.toNormalizedString()) || METADATA_ADDRESSES.has(parsed.toString())) return true;
  return parsed.range() !== 'unicast';
}

/**
 * The URL rules checked before any lookup: absolute http(s) with a host, no credentials, https
 * unless insecure webhooks are allowed. Answers the parsed URL or the violation.
 */
export function parseWebhookUrl(
  raw: string,
  policy: WebhookUrlPolicy,
): { url: URL; violation?: undefined } | { url?: undefined; violation: FieldViolation } {
  const violation = (msg: string, type: string): { violation: FieldViolation } => ({
    violation: { loc: ['body', 'url'], msg, type, input: raw },
  });
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return violation('Input should be a valid URL', 'url_parsing');
  }
  if (url.protocol !== 'https:' && !(policy.allowInsecure && url.protocol === 'http:')) {
    return violation('URL scheme should be https', 'url_scheme');
  }
  if (url.username || url.password) return violation('URL should not carry credentials', 'url_credentials');
  if (!url.hostname) return violation('URL should have a host', 'url_parsing');
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  if (!policy.allowInsecure && !policy.ports.includes(port)) {
    return violation(
      `URL port should be ${policy.ports.join(' or ')}: webhooks are delivered to ${policy.ports.length > 1 ? 'these ports' : 'this port'} only`,
      'url_port',
    );
  }
  return { url };
}

/** The violation for a host that resolves to (or is) an address webhooks may not reach. */
export const forbiddenAddressViolation = (raw: string, address: string): FieldViolation => ({
  loc: ['body', 'url'],
  msg: `URL resolves to ${address}, a loopback, private, link-local or metadata address`,
  type: 'url_forbidden_address',
  input: raw,
});
