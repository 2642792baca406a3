import { createHash, randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { canonicalJson, type Clock, type Logger } from '@billing/platform';
import type { IdempotencyIdentity, IdempotencyRepository } from '../db/idempotency.repository';
import { HttpError, RequestValidationError } from '../http/http-error';
import { matchedRoutePath } from './http-metrics';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The request's valid Idempotency-Key, set once it holds the key; money-moving routes pass it on. */
      idempotencyKey?: string;
    }
  }
}

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/** How long a record answers replays (docs/idempotency.md). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

const PRINTABLE_ASCII = /^[\x20-\x7e]{1,255}$/;

export interface IdempotencyDeps {
  store: IdempotencyRepository;
  clock: Clock;
  logger: Logger;
  /** How long a running request holds its key before another replica may take it over. */
  lockMs: number;
}

/** The key of a request, or a 422 in the published shape when the header is not 1..255 printable ASCII. */
export function readIdempotencyKey(req: Request): string | undefined {
  const raw = req.get(IDEMPOTENCY_KEY_HEADER);
  if (raw === undefined) return undefined;
  if (!PRINTABLE_ASCII.test(raw)) {
    throw new RequestValidationError([
      {
        loc: ['header', IDEMPOTENCY_KEY_HEADER],
        msg: 'Idempotency-Key must be 1 to 255 printable ASCII characters',
        type: 'value_error',
        input: raw.length > 300 ? `${raw.slice(0, 300)}…` : raw,
      },
    ]);
  }
  return raw;
}

/** Each API key is its own scope; a request with a token only is scoped to its merchant. */
function scopeOf(req: Request): string {
  const { apiKey, merchant } = req.auth ?? {};
  if (apiKey) return `key:${apiKey.keyId}`;
  if (merchant) return `merchant:${merchant.id}`;
  throw new Error('idempotency middleware mounted before authentication');
}

/** Kept for replay: every 2xx and 4xx but 429 (the in-progress 409 is never produced by a held key). */
const isStored = (status: number) => status >= 200 && status < 500 && status !== 429;

/**
 * Idempotency-Key on authenticated POSTs (docs/idempotency.md). Runs after authentication. The
 * record is claimed before the route runs (one INSERT ... ON CONFLICT in the gateway's database
 * decides which request runs, whichever replica it reached) and completed with the answer just
 * before the answer is sent, so a client that retries once it has the answer gets the replay.
 * A 5xx or 429 answer releases the record: the retry runs again.
 */
export function idempotency(deps: IdempotencyDeps): RequestHandler {
  return async (req, res, next) => {
    if (req.method !== 'POST') return next();
    const key = readIdempotencyKey(req);
    if (key === undefined) return next();
    const identity: IdempotencyIdentity = {
      scope: scopeOf(req),
      method: req.method,
      // The route, not the URL as typed: /Subscriptions/{id}/discount/ is the same request.
      path: matchedRoutePath(req, res),
      key,
    };
    const bodyHash = createHash('sha256')
      .update(canonicalJson(req.body ?? null))
      .digest('hex');
    const owner = randomUUID();
    const now = deps.clock.now();
    let result;
    try {
      result = await deps.store.claim({
        ...identity,
        bodyHash,
        owner,
        now,
        lockedUntil: new Date(now.getTime() + deps.lockMs),
        expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
      });
    } catch (err) {
      deps.logger.error({ err, request_id: req.requestId }, 'idempotency store unavailable');
      throw new HttpError(503, 'The idempotency store is temporarily unavailable; please retry', {
        'Retry-After': '1',
      });
    }
    if (!result.claimed) {
      const { record } = result;
      if (record.bodyHash !== bodyHash) {
        throw new HttpError(409, 'This Idempotency-Key was already used with a different request body');
      }
      if (record.status === null) {
        throw new HttpError(
          409,
          'A request with this Idempotency-Key is still in progress; retry after it has finished',
        );
      }
      res.status(record.status).set('Idempotent-Replayed', 'true');
      if (record.responseBody) res.type('application/json').send(record.responseBody);
      else res.end();
      return;
    }
    req.idempotencyKey = key;
    completeBeforeSending(res, async (status, body) => {
      if (isStored(status)) await deps.store.complete(identity, owner, status, body);
      else await deps.store.release(identity, owner);
    }).catch((err: unknown) =>
      deps.logger.error(
        { err, request_id: req.requestId },
        'idempotency record not completed; it stays held until its lock passes',
      ),
    );
    next();
  };
}

/**
 * Runs `record` with the answer's status and body when the route ends its response, and sends
 * the response only once it is done. The answer goes out even when storing it failed (the
 * returned promise rejects for the caller to log).
 */
function completeBeforeSending(res: Response, record: (status: number, body: string) => Promise<void>): Promise<void> {
  return new Promise((resolve, reject) => {
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    res.end = ((...args: unknown[]) => {
      res.end = end as Response['end'];
      const [chunk] = args;
      const body = Buffer.isBuffer(chunk) ? chunk.toString('utf8') : typeof chunk === 'string' ? chunk : '';
      record(res.statusCode, body)
        .then(resolve, reject)
        .finally(() => end(...args));
      return res;
    }) as Response['end'];
  });
}
