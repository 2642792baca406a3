import type { components } from './generated/api';

/** One violation of a 422 answer: where (`["body", "amount"]`), what, and its machine-readable kind. */
export type ValidationViolation = components['schemas']['ValidationErrorItem'];

const isViolations = (detail: unknown): detail is ValidationViolation[] =>
  Array.isArray(detail) && detail.every((v) => typeof v === 'object' && v !== null && 'loc' in v && 'msg' in v);

function readDetail(body: unknown): string | ValidationViolation[] | undefined {
  const detail = typeof body === 'object' && body !== null ? (body as { detail?: unknown }).detail : undefined;
  return typeof detail === 'string' || isViolations(detail) ? detail : undefined;
}

const describe = (detail: string | ValidationViolation[] | undefined): string =>
  Array.isArray(detail) ? detail.map((v) => `${v.loc.join('.')}: ${v.msg}`).join('; ') : (detail ?? 'no detail');

/**
 * A non-2xx answer of the API, after the client's retries. `detail` is the body's `detail`: one
 * sentence, or for a 422 the list of violations (`{ loc, msg, type }`).
 */
export class BillingApiError extends Error {
  override readonly name = 'BillingApiError';
  readonly status: number;
  readonly detail: string | ValidationViolation[] | undefined;
  /** The X-Request-Id the gateway answered with: quote it to support. */
  readonly requestId: string | undefined;
  /** The body as answered: parsed JSON, or the text when it was not JSON. */
  readonly body: unknown;
  readonly headers: Headers;

  /** `path` as the document names it, e.g. `/api/v1/plans/{plan_id}`. */
  constructor(method: string, path: string, response: Response, body: unknown) {
    const detail = readDetail(body);
    super(`${method.toUpperCase()} ${path} answered ${response.status}: ${describe(detail)}`);
    this.status = response.status;
    this.detail = detail;
    this.requestId = response.headers.get('x-request-id') ?? undefined;
    this.body = body;
    this.headers = response.headers;
  }

  /** The violations of a 422 answer; [] for any other. */
  get violations(): ValidationViolation[] {
    return Array.isArray(this.detail) ? this.detail : [];
  }
}
