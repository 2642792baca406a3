import { createCipheriv, createDecipheriv, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { hashOf, isTokenShaped, newToken, readCookie, sameToken, type Clock } from '@billing/platform';
import type { DashboardSessionRecord, DashboardSessionRepository } from '../db/dashboard-session.repository';

/** The session's cookie: its token, kept only hashed. */
export const SESSION_COOKIE = 'dashboard_session';
/** The sign-in form's own CSRF token (double submit: there is no session yet to keep it in). */
export const SIGN_IN_COOKIE = 'dashboard_sign_in';
/** Both cookies go back only to the dashboard's own paths. */
export const DASHBOARD_PATH = '/dashboard';

export interface DashboardSessionSettings {
  /** DASHBOARD_SESSION_IDLE_SECONDS: a session ends this long after its last request. */
  idleSeconds: number;
  /** DASHBOARD_SESSION_MAX_SECONDS: and this long after its sign-in, whatever happens. */
  maxSeconds: number;
  /** PUBLIC_URL is https: the cookies are Secure. */
  secureCookies: boolean;
}

/** A live session and the cookie token that opened it (the key of its sealed secret). */
export interface LiveSession extends DashboardSessionRecord {
  cookieToken: string;
}

const SEAL = 'aes-256-gcm';

/**
 * The merchant dashboard's sessions (docs/decisions.md, "Dashboard sessions"): a random cookie token
 * stored as its SHA-256, an idle and an absolute expiry decided by the server, a CSRF synchronizer
 * token per session, and a secret shown once (a new API key's) sealed under the cookie's token.
 */
export class DashboardSessions {
  constructor(
    private readonly sessions: DashboardSessionRepository,
    private readonly clock: Clock,
    private readonly settings: DashboardSessionSettings,
  ) {}

  private cookieOptions() {
    // Strict: no other site's page, link or form ever sends it (docs/decisions.md, "Dashboard sessions").
    return { httpOnly: true, sameSite: 'strict' as const, secure: this.settings.secureCookies, path: DASHBOARD_PATH };
  }

  /**
   * A new session for a merchant who just proved their password, with a new token (never the one
   * the browser came with), replacing `previous`; the cookie is set on `res`.
   */
  async start(
    res: Response,
    merchantId: string,
    projectId: string,
    livemode: boolean,
    previous?: LiveSession,
  ): Promise<void> {
    if (previous) await this.sessions.end(previous.id);
    const cookieToken = newToken();
    const now = this.clock.now();
    await this.sessions.create({
      id: randomUUID(),
      tokenHash: hashOf(cookieToken),
      merchantId,
      csrfToken: newToken(),
      projectId,
      livemode,
      now,
      expiresAt: new Date(now.getTime() + this.settings.maxSeconds * 1000),
    });
    res.cookie(SESSION_COOKIE, cookieToken, this.cookieOptions());
  }

  /** The request's live session, kept alive by it; none for no cookie, a foreign one or an ended session. */
  async live(req: Request): Promise<LiveSession | undefined> {
    const cookieToken = readCookie(req.headers.cookie, SESSION_COOKIE);
    if (!cookieToken || !isTokenShaped(cookieToken)) return undefined;
    const now = this.clock.now();
    const aliveSince = new Date(now.getTime() - this.settings.idleSeconds * 1000);
    const session = await this.sessions.touch(hashOf(cookieToken), aliveSince, now);
    return session ? { ...session, cookieToken } : undefined;
  }

  choose(session: LiveSession, projectId: string, livemode: boolean): Promise<void> {
    return this.sessions.choose(session.id, projectId, livemode);
  }

  async end(res: Response, session: LiveSession | undefined): Promise<void> {
    if (session) await this.sessions.end(session.id);
    res.clearCookie(SESSION_COOKIE, this.cookieOptions());
  }

  /** Every form's token must be its session's (403 otherwise, decided by the caller). */
  csrfHolds(session: LiveSession, given: unknown): boolean {
    return sameToken(session.csrfToken, given);
  }

  /** The sign-in form's token, set as a cookie too: the form posted must carry the cookie's value. */
  signInToken(res: Response): string {
    const token = newToken();
    res.cookie(SIGN_IN_COOKIE, token, this.cookieOptions());
    return token;
  }

  signInTokenHolds(req: Request, given: unknown): boolean {
    return sameToken(readCookie(req.headers.cookie, SIGN_IN_COOKIE), given);
  }

  /**
   * Keeps `secret` for the next page of this session to show once. Sealed with AES-256-GCM under a
   * key derived from the cookie's token, which the database never holds: a copy of the table
   * reveals no secret, even in the moment between this request and the next.
   */
  async keepSecret(session: LiveSession, secret: string): Promise<void> {
    const iv = randomBytes(12);
    const cipher = createCipheriv(SEAL, sealKey(session), iv);
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    await this.sessions.keepSecret(session.id, Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url'));
  }

  /** The kept secret, once: the page that shows it takes it away. */
  async takeSecret(session: LiveSession): Promise<string | undefined> {
    const stored = await this.sessions.takeSecret(session.id);
    if (!stored) return undefined;
    const bytes = Buffer.from(stored, 'base64url');
    const decipher = createDecipheriv(SEAL, sealKey(session), bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
  }

  /** Deletes sessions that can never be used again; how many. */
  async purgeEnded(batch: number): Promise<number> {
    const now = this.clock.now();
    return this.sessions.purgeEnded(new Date(now.getTime() - this.settings.idleSeconds * 1000), now, batch);
  }
}

const sealKey = (session: LiveSession): Buffer =>
  Buffer.from(hkdfSync('sha256', session.cookieToken, session.id, 'dashboard revealed secret', 32));
