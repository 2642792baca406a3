import { isIP } from 'node:net';
import { DomainError } from '@billing/platform';
import { forbiddenAddressViolation, isForbiddenAddress, parseWebhookUrl } from '../domain/webhook-url';
import type { WebhookDeps } from '../notification-deps';

/**
 * The SSRF guard at registration: the URL's rules, then every address its host resolves to must
 * be a public one (unless insecure webhooks are allowed). A host that does not resolve is
 * refused too: nothing could be delivered to it.
 */
export async function checkWebhookUrl(deps: WebhookDeps, raw: string): Promise<string> {
  const parsed = parseWebhookUrl(raw, deps.urlPolicy);
  if (parsed.violation) throw DomainError.invalid([parsed.violation]);
  if (deps.urlPolicy.allowInsecure) return parsed.url.toString();
  const host = parsed.url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await deps.resolveHost(host);
  } catch {
    addresses = [];
  }
  if (addresses.length === 0) {
    throw DomainError.invalid([
      { loc: ['body', 'url'], msg: 'URL host does not resolve', type: 'url_unresolvable', input: raw },
    ]);
  }
  const forbidden = addresses.find(isForbiddenAddress);
  if (forbidden) throw DomainError.invalid([forbiddenAddressViolation(raw, forbidden)]);
  return parsed.url.toString();
}
