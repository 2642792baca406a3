import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The customer portal's long-lived entry link, the one a customer email carries
 * (docs/api-behaviour.md §24): it names one customer of one project and mode and when it stops
 * working, under an HMAC-SHA256 with PORTAL_LINKS_KEY, so the service that writes the email
 * (notification) and the one that opens the portal (portal) agree on it without a call or a
 * stored row. Opening it starts a fresh portal session of that customer, as POST /portal/sessions
 * does. Several keys rotate: the first signs, each is accepted; the MAC is compared in constant
 * time and has one spelling.
 */

export interface PortalLinkClaims {
  projectId: string;
  livemode: boolean;
  customerId: string;
  /** When the link stops opening the portal. */
  expiresAt: Date;
}

const PAYLOAD = /^([0-9a-f]{32})\.([01])\.([0-9a-f]{32})\.(\d{1,13})\.([A-Za-z0-9_-]{43})$/;

const hexOf = (id: string) => id.replace(/-/g, '').toLowerCase();
const uuidOf = (hex: string) =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

export class PortalLinks {
  constructor(private readonly keys: readonly string[]) {
    if (keys.length === 0 || keys.some((key) => key.length < 32)) {
      throw new Error('PortalLinks needs at least one key of at least 32 characters');
    }
  }

  /** The token of an entry link: what `/portal/enter/<token>` carries. */
  tokenOf(claims: PortalLinkClaims): string {
    const payload = this.payloadOf(claims);
    return `${payload}.${this.mac(this.keys[0], payload).toString('base64url')}`;
  }

  /** The claims of a token signed by one of our keys and not expired at `now`; null otherwise. */
  claimsOf(token: string, now: Date): PortalLinkClaims | null {
    const match = PAYLOAD.exec(token);
    if (!match) return null;
    const [, project, mode, customer, expires, mac] = match;
    const payload = `${project}.${mode}.${customer}.${expires}`;
    const given = Buffer.from(mac, 'base64url');
    if (given.length !== 32 || given.toString('base64url') !== mac) return null;
    let valid = false;
    for (const key of this.keys) valid = timingSafeEqual(given, this.mac(key, payload)) || valid;
    if (!valid) return null;
    const expiresAt = new Date(Number(expires));
    if (expiresAt.getTime() <= now.getTime()) return null;
    return { projectId: uuidOf(project), livemode: mode === '1', customerId: uuidOf(customer), expiresAt };
  }

  private payloadOf(claims: PortalLinkClaims): string {
    return `${hexOf(claims.projectId)}.${claims.livemode ? 1 : 0}.${hexOf(claims.customerId)}.${claims.expiresAt.getTime()}`;
  }

  private mac(key: string, payload: string): Buffer {
    return createHmac('sha256', key).update(`portal-entry:${payload}`).digest();
  }
}
