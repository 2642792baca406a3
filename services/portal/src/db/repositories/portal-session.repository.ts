import { Op } from 'sequelize';
import type { RowScope } from '@billing/platform';
import { PortalSessionModel } from '../models/portal-session.model';

export interface NewPortalSession extends RowScope {
  id: string;
  merchantId: string;
  customerId: string;
  returnUrl: string | null;
  linkTokenHash: string | null;
  linkExpiresAt: Date;
  createdAt: Date;
}

export class PortalSessionRepository {
  async create(session: NewPortalSession): Promise<PortalSessionModel> {
    return PortalSessionModel.create({ ...session, updatedAt: session.createdAt });
  }

  /**
   * Opens the browser session of the URL whose token hashes to `linkTokenHash`, once: only while
   * the URL is unused and unexpired, in one UPDATE, so that two browsers racing with one link
   * cannot both get in. Null when the link opens nothing.
   */
  async useLink(
    linkTokenHash: string,
    browser: { browserTokenHash: string; csrfToken: string },
    now: Date,
  ): Promise<PortalSessionModel | null> {
    const [count, rows] = await PortalSessionModel.update(
      { linkUsedAt: now, ...browser, lastSeenAt: now, updatedAt: now },
      {
        where: { linkTokenHash, linkUsedAt: null, linkExpiresAt: { [Op.gt]: now } },
        returning: true,
      },
    );
    return count === 1 ? rows[0] : null;
  }

  /** A session opened without a URL (an entry link's): its browser session starts now. */
  async openDirectly(
    session: NewPortalSession,
    browser: { browserTokenHash: string; csrfToken: string },
  ): Promise<PortalSessionModel> {
    const now = session.createdAt;
    return PortalSessionModel.create({
      ...session,
      ...browser,
      linkUsedAt: now,
      lastSeenAt: now,
      updatedAt: now,
    });
  }

  /** The browser session of a cookie's token, alive or not; null for a token we never gave. */
  findByBrowserToken(browserTokenHash: string): Promise<PortalSessionModel | null> {
    return PortalSessionModel.findOne({ where: { browserTokenHash } });
  }

  /**
   * Keeps a browser session alive: last_seen_at moves to `now` only while it is still alive
   * (last used after `aliveSince`), so an expired one can never come back. False when it had
   * expired.
   */
  async touch(id: string, aliveSince: Date, now: Date): Promise<boolean> {
    const [count] = await PortalSessionModel.update(
      { lastSeenAt: now, updatedAt: now },
      { where: { id, lastSeenAt: { [Op.gt]: aliveSince } } },
    );
    return count === 1;
  }

  /**
   * Deletes up to `limit` sessions that can never open anything again: a link never opened and
   * past its expiry, or a browser session last used before `idleSince`. Answers how many.
   */
  async purgeEnded(now: Date, idleSince: Date, limit: number): Promise<number> {
    const ended = await PortalSessionModel.findAll({
      attributes: ['id'],
      where: {
        [Op.or]: [{ browserTokenHash: null, linkExpiresAt: { [Op.lt]: now } }, { lastSeenAt: { [Op.lt]: idleSince } }],
      },
      limit,
    });
    if (ended.length === 0) return 0;
    return PortalSessionModel.destroy({ where: { id: ended.map((session) => session.id) } });
  }
}
