import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { counter, type Logger } from '@billing/platform';
import type { GatewayConfig } from '../config';
import { HttpError } from '../http/http-error';

/**
 * Rate limits (docs/rate-limits.md): per API key, per client address on /auth/*, and failed
 * logins per email. Counted in Redis so that every gateway replica shares one count; when Redis
 * can't be reached, each replica counts on its own in memory (rate-limiter-flexible's insurance
 * limiter) rather than refuse or slow down requests.
 */

export type RateLimitConfig = Pick<
  GatewayConfig,
  | 'REDIS_URL'
  | 'REDIS_KEY_PREFIX'
  | 'RATE_LIMIT_LIVE_PER_SECOND'
  | 'RATE_LIMIT_TEST_PER_SECOND'
  | 'LOGIN_FAILURES_PER_15_MIN'
  | 'AUTH_REQUESTS_PER_MINUTE_PER_ADDRESS'
  | 'PORTAL_REQUESTS_PER_MINUTE_PER_ADDRESS'
>;

/** A Redis command that has not answered by then is treated as "Redis is down" for that request. */
const REDIS_COMMAND_TIMEOUT_MS = 250;
/** The burst allowance: a key may spend two seconds' worth of requests at once (docs/rate-limits.md). */
const BURST_FACTOR = 2;
const LOGIN_WINDOW_SECONDS = 15 * 60;

/** One limiter: counted in Redis, in this process's memory while Redis is unreachable. */
function insuredLimiter(redis: Redis, keyPrefix: string, points: number, duration: number): RateLimiterRedis {
  return new RateLimiterRedis({
    storeClient: redis,
    keyPrefix,
    points,
    duration,
    // Straight to the in-memory insurance while the connection is down: no wait per request.
    rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration }),
  });
}

/** Which limit refused a request (docs/rate-limits.md): the label of the refusals metric. */
type LimitKind = 'api_key_live' | 'api_key_test' | 'auth_address' | 'portal_address' | 'login_failures';

const refusals = counter(
  'gateway_rate_limit_refusals_total',
  'Requests refused with 429, by the limit that refused them',
  ['limit'],
);

/** A refusal: 429 with the seconds until the window that refused it ends. */
function tooManyRequests(
  limit: LimitKind,
  refusal: RateLimiterRes,
  detail: string,
  headers: Record<string, string> = {},
): HttpError {
  refusals.inc({ limit });
  const retryAfter = Math.max(1, Math.ceil(refusal.msBeforeNext / 1000));
  return new HttpError(429, detail, { ...headers, 'Retry-After': String(retryAfter) });
}

/** Anything else a limiter throws is a bug of ours (the insurance limiter answers when Redis does not). */
function isRefusal(err: unknown): err is RateLimiterRes {
  return err instanceof RateLimiterRes;
}

/** Email addresses are not kept in Redis as such; the identity service compares them trimmed and lower-cased too. */
function emailFingerprint(email: string): string {
  return createHash('sha256').update(email.trim().toLowerCase(), 'utf8').digest('hex');
}

export class RateLimits {
  private readonly redis: Redis;
  private readonly liveKeys: RateLimiterRedis;
  private readonly testKeys: RateLimiterRedis;
  private readonly authAddresses: RateLimiterRedis;
  private readonly portalAddresses: RateLimiterRedis;
  private readonly loginFailures: RateLimiterRedis;
  /** Whether the last thing Redis told us was that it works; undefined before the first word. */
  private redisUp: boolean | undefined;

  constructor(
    private readonly config: RateLimitConfig,
    private readonly logger: Logger,
  ) {
    this.redis = new Redis(config.REDIS_URL, {
      // Fail fast instead of queueing commands while disconnected or waiting on a hung server;
      // the limiter then answers from memory.
      enableOfflineQueue: false,
      commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
      maxRetriesPerRequest: 0,
      connectTimeout: 2000,
    });
    this.redis.on('ready', () => this.redisState(true));
    this.redis.on('error', (err: Error) => this.redisState(false, err));
    this.redis.on('close', () => this.redisState(false));

    const prefix = `${config.REDIS_KEY_PREFIX}:rl`;
    this.liveKeys = insuredLimiter(
      this.redis,
      `${prefix}:key:live`,
      config.RATE_LIMIT_LIVE_PER_SECOND * BURST_FACTOR,
      BURST_FACTOR,
    );
    this.testKeys = insuredLimiter(
      this.redis,
      `${prefix}:key:test`,
      config.RATE_LIMIT_TEST_PER_SECOND * BURST_FACTOR,
      BURST_FACTOR,
    );
    this.authAddresses = insuredLimiter(this.redis, `${prefix}:auth`, config.AUTH_REQUESTS_PER_MINUTE_PER_ADDRESS, 60);
    this.portalAddresses = insuredLimiter(
      this.redis,
      `${prefix}:portal`,
      config.PORTAL_REQUESTS_PER_MINUTE_PER_ADDRESS,
      60,
    );
    this.loginFailures = insuredLimiter(
      this.redis,
      `${prefix}:login`,
      config.LOGIN_FAILURES_PER_15_MIN,
      LOGIN_WINDOW_SECONDS,
    );
  }

  /** Logged once per change: an outage is one warning, not one per request or reconnect attempt. */
  private redisState(up: boolean, err?: Error): void {
    if (this.redisUp === up) return;
    this.redisUp = up;
    if (up) this.logger.info('rate limits: Redis reachable, counts are shared by every replica');
    else {
      this.logger.warn(
        { cause: err?.message },
        'rate limits: Redis unreachable, each replica counts in its own memory until it is back',
      );
    }
  }

  /**
   * After authentication: the API key's budget, 2 s windows of twice the per-second rate. Every
   * answer to the request carries X-RateLimit-Limit (the sustained rate per second) and
   * X-RateLimit-Remaining (what is left of the current window).
   */
  perApiKey(): RequestHandler {
    return async (req, res, next) => {
      const apiKey = req.auth?.apiKey;
      if (!apiKey) throw new Error('the per-key rate limit runs after API-key authentication');
      const limit = apiKey.livemode ? this.config.RATE_LIMIT_LIVE_PER_SECOND : this.config.RATE_LIMIT_TEST_PER_SECOND;
      const limiter = apiKey.livemode ? this.liveKeys : this.testKeys;
      const headers = (remaining: number) => ({
        'X-RateLimit-Limit': String(limit),
        'X-RateLimit-Remaining': String(remaining),
      });
      try {
        const allowed = await limiter.consume(apiKey.keyId);
        res.set(headers(allowed.remainingPoints));
      } catch (err) {
        if (!isRefusal(err)) throw err;
        throw tooManyRequests(
          apiKey.livemode ? 'api_key_live' : 'api_key_test',
          err,
          `Rate limit exceeded: ${limit} requests per second for this API key`,
          headers(0),
        );
      }
      next();
    };
  }

  /** Every /api/v1/auth/* request: a budget per client address and minute. */
  perAuthAddress(): RequestHandler {
    return async (req, _res, next) => {
      try {
        await this.authAddresses.consume(req.ip ?? req.socket.remoteAddress ?? 'unknown');
      } catch (err) {
        if (!isRefusal(err)) throw err;
        throw tooManyRequests('auth_address', err, 'Too many authentication requests from this address; retry later');
      }
      next();
    };
  }

  /**
   * Every customer portal page and form (/portal/*, docs/api-behaviour.md §24): a budget per client
   * address and minute, so that guessing session links or hammering actions is slowed down
   * whichever replica answers.
   */
  perPortalAddress(): RequestHandler {
    return async (req, _res, next) => {
      try {
        await this.portalAddresses.consume(req.ip ?? req.socket.remoteAddress ?? 'unknown');
      } catch (err) {
        if (!isRefusal(err)) throw err;
        throw tooManyRequests('portal_address', err, 'Too many portal requests from this address; retry later');
      }
      next();
    };
  }

  /**
   * POST /auth/login: an attempt takes one point of its email's 15-minute budget before it runs
   * (so concurrent attempts can't overshoot) and gives it back unless it failed with 401; a refused
   * attempt gives its point back too. Once failures have spent the budget every attempt is
   * refused, a right password included, until the window ends.
   */
  loginFailuresPerEmail(): RequestHandler {
    return async (req, res, next) => {
      const email = (req.body as { email?: unknown } | undefined)?.email;
      // A body without an email is the route's 422 to give.
      if (typeof email !== 'string') return next();
      const key = emailFingerprint(email);
      try {
        await this.loginFailures.consume(key);
      } catch (err) {
        if (!isRefusal(err)) throw err;
        // The refused attempt was counted too; only failures may use up the budget.
        this.giveBack(key);
        throw tooManyRequests('login_failures', err, 'Too many failed login attempts for this email; retry later');
      }
      res.on('finish', () => {
        if (res.statusCode !== 401) this.giveBack(key);
      });
      next();
    };
  }

  private giveBack(key: string): void {
    this.loginFailures.reward(key).catch((err: unknown) => {
      this.logger.warn({ err }, 'rate limits: could not give back a login attempt');
    });
  }

  async close(): Promise<void> {
    this.redis.removeAllListeners();
    this.redis.on('error', () => undefined);
    this.redis.disconnect();
  }
}
