import type { RequestHandler } from 'express';
import type { Logger } from '@billing/platform';

/**
 * The path without its query (ledger filters carry emails), and with the hosted page's access
 * code masked: that code is all a payer needs, so it stays out of logs.
 */
export const loggablePath = (originalUrl: string) =>
  originalUrl.split('?')[0].replace(/^\/pay\/[^/]+/, '/pay/:accessCode');

/** One line per request. */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      logger.info(
        {
          method: req.method,
          path: loggablePath(req.originalUrl),
          status: res.statusCode,
          duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
        },
        'request',
      );
    });
    next();
  };
}
