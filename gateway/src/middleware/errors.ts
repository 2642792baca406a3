import { randomUUID } from 'node:crypto';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { MonthRangeError } from '@billing/analytics';
import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import {
  isDatabaseUnavailable,
  isGrpcServiceError,
  readRemoteError,
  type FieldViolation,
  type Logger,
  type RemoteError,
} from '@billing/platform';
import { HttpError, RequestValidationError } from '../http/http-error';
import { IDEMPOTENCY_KEY_HEADER } from './idempotency';

export interface ErrorResponse {
  status: number;
  body: { detail: string | FieldViolation[] };
  headers?: Record<string, string>;
}

/**
 * The one table from a downstream gRPC status to HTTP (docs/api-behaviour.md §1). Statuses not listed
 * (INTERNAL, UNKNOWN, DATA_LOSS, ...) are our own faults: a 500 with a generic detail.
 */
const GRPC_TO_HTTP: Partial<Record<GrpcStatus, number>> = {
  [GrpcStatus.INVALID_ARGUMENT]: 422,
  [GrpcStatus.OUT_OF_RANGE]: 422,
  [GrpcStatus.UNAUTHENTICATED]: 401,
  [GrpcStatus.PERMISSION_DENIED]: 403,
  [GrpcStatus.NOT_FOUND]: 404,
  [GrpcStatus.ALREADY_EXISTS]: 409,
  [GrpcStatus.ABORTED]: 409,
  [GrpcStatus.FAILED_PRECONDITION]: 400,
  [GrpcStatus.RESOURCE_EXHAUSTED]: 429,
  [GrpcStatus.UNAVAILABLE]: 503,
  [GrpcStatus.DEADLINE_EXCEEDED]: 503,
};

/** The downstream's own words are fine for business rules, not for transport failures. */
const UNAVAILABLE_DETAIL = 'A backing service is temporarily unavailable; please retry';

/**
 * A POST without Idempotency-Key that ends in 503 may have taken effect or not, and a blind retry
 * may do it twice: say so, and send no Retry-After that would invite one (docs/idempotency.md).
 */
const UNKNOWN_OUTCOME_DETAIL =
  'A backing service did not answer in time: the outcome of this request is unknown and it may have ' +
  'taken effect. Retrying without an Idempotency-Key may repeat it; check the resource first, or send ' +
  'requests with an Idempotency-Key so that a retry is safe';

function withoutKeyOutcomeUnknown(response: ErrorResponse): ErrorResponse {
  const headers = Object.fromEntries(
    Object.entries(response.headers ?? {}).filter(([name]) => name.toLowerCase() !== 'retry-after'),
  );
  return { status: 503, body: { detail: UNKNOWN_OUTCOME_DETAIL }, headers };
}

function fromRemote(remote: RemoteError): ErrorResponse | undefined {
  const status =
    remote.code === GrpcStatus.FAILED_PRECONDITION && remote.reason === 'payment_required'
      ? 402
      : GRPC_TO_HTTP[remote.code];
  if (status === undefined) return undefined;
  if (status === 422) {
    const violations =
      remote.violations.length > 0 ? remote.violations : [{ loc: ['body'], msg: remote.detail, type: 'value_error' }];
    return { status, body: { detail: violations } };
  }
  if (status === 503) return { status, body: { detail: UNAVAILABLE_DETAIL }, headers: { 'Retry-After': '1' } };
  if (status === 429) return { status, body: { detail: remote.detail }, headers: { 'Retry-After': '1' } };
  return { status, body: { detail: remote.detail } };
}

/** body-parser's own errors (raised before any route runs). */
function fromBodyParser(err: unknown): ErrorResponse | undefined {
  const type = (err as { type?: unknown }).type;
  if (type === 'entity.too.large') return { status: 413, body: { detail: 'Request body is larger than 1 MiB' } };
  // The dashboard's forms (urlencoded): more fields than any of its forms has.
  if (type === 'parameters.too.many') return { status: 413, body: { detail: 'The form has too many fields' } };
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return { status: 415, body: { detail: 'Unsupported request body encoding' } };
  }
  if (type === 'request.aborted' || type === 'request.size.invalid' || type === 'stream.encoding.set') {
    return { status: 400, body: { detail: 'The request body could not be read' } };
  }
  return undefined;
}

/**
 * The router decodes path parameters itself and throws a URIError on a bad percent-escape
 * (`/plans/%E0%A4%A`): such a path names no record, hence 404 like any other bad id.
 */
function fromRouter(err: unknown): ErrorResponse | undefined {
  if (err instanceof URIError) return { status: 404, body: { detail: 'Not Found' } };
  return undefined;
}

function toErrorResponse(err: unknown): ErrorResponse | undefined {
  if (err instanceof HttpError) return { status: err.status, body: { detail: err.detail }, headers: err.headers };
  // A month range the analytics routes refuse: not YYYY-MM, from after to, too long (docs/api-behaviour.md §25).
  if (err instanceof MonthRangeError) return { status: 400, body: { detail: err.message } };
  if (err instanceof RequestValidationError) return { status: 422, body: { detail: err.violations } };
  if (isGrpcServiceError(err)) return fromRemote(readRemoteError(err));
  // The gateway's own database (idempotency records) restarting or failing over.
  if (isDatabaseUnavailable(err)) {
    return { status: 503, body: { detail: UNAVAILABLE_DETAIL }, headers: { 'Retry-After': '1' } };
  }
  return fromBodyParser(err) ?? fromRouter(err);
}

/**
 * What a failure answers, whoever shows it (the JSON errors below, the dashboard's pages): a known
 * failure its status and detail, anything else a 500 whose detail names only an error id (never a
 * stack), the error itself going to the log.
 */
export function errorResponseOf(err: unknown, req: Request, logger: Logger): ErrorResponse {
  let response = toErrorResponse(err);
  if (!response) {
    const errorId = randomUUID();
    logger.error(
      { err, error_id: errorId, request_id: req.requestId, method: req.method, path: req.path },
      'unhandled error',
    );
    response = { status: 500, body: { detail: `Internal server error (error id ${errorId})` } };
  } else if (response.status === 503) {
    const cause = err instanceof Error ? err.message : String(err);
    logger.warn(
      { cause, request_id: req.requestId, method: req.method, path: req.path },
      'backing service unavailable',
    );
    if (req.method === 'POST' && req.get(IDEMPOTENCY_KEY_HEADER) === undefined) {
      response = withoutKeyOutcomeUnknown(response);
    }
  }
  return response;
}

/** Every error of every route ends here, answered as {"detail"} with its status. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) return next(err);
    const response = errorResponseOf(err, req, logger);
    res
      .status(response.status)
      .set(response.headers ?? {})
      .json(response.body);
  };
}

/** Unknown routes answer in JSON like every other error. */
export const notFoundHandler: RequestHandler = (_req, _res, next) => next(new HttpError(404, 'Not Found'));
