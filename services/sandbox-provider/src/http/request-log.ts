import type { RequestHandler } from 'express';
import type { Logger } from '@billing/platform';

/**
 * The path without its query (ledger filters carry emails), and with the hosted page's access
 * code masked: that code is all a payer needs, so it stays out of logs.
 */
export const loggablePath = (originalUrl: string) =>
  originalUrl.split('?')[0].replace(/^\/pay\/[^/]+/, '/pay/:accessCode');

/**
 * One line per request, at info. Below that level (LOG_LEVEL=warn under load) a request costs
 * one level check: no clock read, no listener; checked per request so a level changed at
 * runtime takes effect.
 */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    if (!logger.isLevelEnabled('info')) return next();
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
