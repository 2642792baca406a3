import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from '@billing/platform';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** X-Request-Id of the caller when sane, else a fresh one; echoed on the response. */
      requestId: string;
    }
  }
}

const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Gives every request an id (for logs and support) and logs it once when it ends. */
export function requestId(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    req.requestId = incoming && ACCEPTABLE_ID.test(incoming) ? incoming : randomUUID();
    res.set('X-Request-Id', req.requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      logger.info(
        {
          request_id: req.requestId,
          method: req.method,
          // The path only: query strings may carry ids a merchant would rather not see in logs.
          path: req.path,
          status: res.statusCode,
          duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
        },
        'request',
      );
    });
    next();
  };
}
