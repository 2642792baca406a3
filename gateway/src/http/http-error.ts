import type { FieldViolation } from '@billing/platform';

/** A failure the gateway itself decides (auth, routing, body limits); rendered as {"detail": ...}. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'HttpError';
  }
}

/** A request that fails validation; rendered as 422 {"detail": [violations]}. */
export class RequestValidationError extends Error {
  constructor(readonly violations: FieldViolation[]) {
    super('Request validation failed');
    this.name = 'RequestValidationError';
  }
}
