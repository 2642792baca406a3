import { Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';

/** The closed set of failures a use case may report. Each maps to one gRPC status. */
export type ErrorKind =
  | 'invalid_argument'
  | 'unauthenticated'
  | 'permission_denied'
  | 'not_found'
  | 'already_exists'
  | 'conflict'
  | 'failed_precondition'
  | 'payment_required'
  | 'resource_exhausted'
  | 'unavailable';

/** One item of a 422 body (docs/api-behaviour.md §0, "Errors"). */
export interface FieldViolation {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly violations: FieldViolation[] = [],
  ) {
    super(message);
    this.name = 'DomainError';
  }

  static invalid(violations: FieldViolation[], message = 'Validation failed'): DomainError {
    return new DomainError('invalid_argument', message, violations);
  }
}

const KIND_TO_STATUS: Record<ErrorKind, GrpcStatus> = {
  invalid_argument: GrpcStatus.INVALID_ARGUMENT,
  unauthenticated: GrpcStatus.UNAUTHENTICATED,
  permission_denied: GrpcStatus.PERMISSION_DENIED,
  not_found: GrpcStatus.NOT_FOUND,
  already_exists: GrpcStatus.ALREADY_EXISTS,
  conflict: GrpcStatus.ABORTED,
  failed_precondition: GrpcStatus.FAILED_PRECONDITION,
  // gRPC has no "payment required"; the reason travels in metadata so the gateway can say 402.
  payment_required: GrpcStatus.FAILED_PRECONDITION,
  resource_exhausted: GrpcStatus.RESOURCE_EXHAUSTED,
  unavailable: GrpcStatus.UNAVAILABLE,
};

const VIOLATIONS_KEY = 'field-violations-bin';
const REASON_KEY = 'error-reason';

export interface GrpcErrorShape {
  code: GrpcStatus;
  details: string;
  metadata: Metadata;
}

/** The one place a domain error becomes a gRPC status. */
export function domainErrorToGrpc(err: DomainError): GrpcErrorShape {
  const metadata = new Metadata();
  metadata.set(REASON_KEY, err.kind);
  if (err.violations.length > 0) {
    metadata.set(VIOLATIONS_KEY, Buffer.from(JSON.stringify(err.violations), 'utf8'));
  }
  return { code: KIND_TO_STATUS[err.kind], details: err.message, metadata };
}

/** What a caller of a gRPC service learns from a failed call. */
export interface RemoteError {
  code: GrpcStatus;
  detail: string;
  reason?: ErrorKind;
  violations: FieldViolation[];
}

export function isGrpcServiceError(err: unknown): err is ServiceError {
  return typeof err === 'object' && err !== null && 'code' in err && 'metadata' in err;
}

export function readRemoteError(err: ServiceError): RemoteError {
  const rawViolations = err.metadata?.get(VIOLATIONS_KEY)[0];
  let violations: FieldViolation[] = [];
  if (Buffer.isBuffer(rawViolations)) {
    try {
      violations = JSON.parse(rawViolations.toString('utf8')) as FieldViolation[];
    } catch {
      violations = [];
    }
  }
  const reason = err.metadata?.get(REASON_KEY)[0];
  return {
    code: err.code,
    detail: err.details || err.message,
    reason: typeof reason === 'string' ? (reason as ErrorKind) : undefined,
    violations,
  };
}
