import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { DomainError, type ErrorKind, type Logger } from '@billing/platform';
import { renderMessagePage } from '../views/payment-page.view';
import { loggablePath } from './request-log';

/** Paystack answers business-rule refusals (duplicate reference, over-refund) with 400. */
const HTTP_STATUS: Record<ErrorKind, number> = {
  invalid_argument: 400,
  failed_precondition: 400,
  already_exists: 400,
  conflict: 409,
  unauthenticated: 401,
  permission_denied: 403,
  not_found: 404,
  payment_required: 402,
  resource_exhausted: 429,
  unavailable: 503,
};

/** body-parser's own failures, raised before any route runs. */
function fromBodyParser(err: unknown): { status: number; message: string } | undefined {
  const type = (err as { type?: unknown }).type;
  if (type === 'entity.parse.failed') return { status: 400, message: 'Invalid JSON body' };
  if (type === 'entity.too.large') return { status: 413, message: 'Request body is too large' };
  const status = (err as { status?: unknown }).status;
  if (typeof type === 'string' && typeof status === 'number' && status >= 400 && status < 500) {
    return { status, message: 'The request body could not be read' };
  }
  return undefined;
}

/** A browser on the hosted page gets a page; API clients get Paystack's `{status: false, message}`. */
const wantsHtml = (req: Request) => req.accepts(['json', 'html']) === 'html';

/**
 * Every failure ends here, once. Known ones keep their status and message; anything else is a
 * 500 naming only an error id (never a stack), with the error itself in the log.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) return next(err);
    let answer =
      err instanceof DomainError ? { status: HTTP_STATUS[err.kind], message: err.message } : fromBodyParser(err);
    if (!answer) {
      const errorId = randomUUID();
      logger.error(
        { err, error_id: errorId, method: req.method, path: loggablePath(req.originalUrl) },
        'unhandled error',
      );
      answer = { status: 500, message: `Internal error (error id ${errorId})` };
    }
    res.status(answer.status);
    if (wantsHtml(req)) res.type('html').send(renderMessagePage('Sandbox payment', answer.message));
    else res.json({ status: false, message: answer.message });
  };
}

export const notFoundHandler: RequestHandler = (_req, _res, next) => next(new DomainError('not_found', 'Not found'));
