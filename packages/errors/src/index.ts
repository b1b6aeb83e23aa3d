/**
 * One error type for the whole system. Domain code throws AppError with a kind; the transport
 * edges (express handler, gRPC wrapper, gRPC client) translate kinds to HTTP statuses and gRPC
 * codes through the single table below, so a kind means the same thing everywhere.
 */
export type ErrorKind =
  | 'validation'
  | 'not_found'
  | 'conflict'
  | 'unprocessable'
  | 'unauthenticated'
  | 'forbidden'
  | 'too_large'
  | 'uri_too_long'
  | 'headers_too_large'
  | 'request_timeout'
  | 'unsupported_media_type'
  | 'unavailable'
  | 'internal';

export class AppError extends Error {
  readonly kind: ErrorKind;
  /** Extra JSON fields for the HTTP body, e.g. `{ conflicts: [...] }`. */
  readonly details: Record<string, unknown> | undefined;

  constructor(kind: ErrorKind, message: string, details?: Record<string, unknown>, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AppError';
    this.kind = kind;
    this.details = details;
  }
}

export const validation = (message: string, details?: Record<string, unknown>) => new AppError('validation', message, details);
export const notFound = (message: string, details?: Record<string, unknown>) => new AppError('not_found', message, details);
export const conflict = (message: string, details?: Record<string, unknown>) => new AppError('conflict', message, details);
/** Well-formed input the current state refuses (GitHub's 422, e.g. `Key is already in use`). */
export const unprocessable = (message: string, details?: Record<string, unknown>) => new AppError('unprocessable', message, details);
export const unauthenticated = (message = 'Authentication required') => new AppError('unauthenticated', message);
export const forbidden = (message = 'Forbidden') => new AppError('forbidden', message);
export const tooLarge = (message: string) => new AppError('too_large', message);
export const uriTooLong = (message = 'URI too long') => new AppError('uri_too_long', message);
export const headersTooLarge = (message = 'Request header fields too large') => new AppError('headers_too_large', message);
/** The client stopped sending its request body part way (docs/security.md#malformed-requests). */
export const requestTimeout = (message = 'Request timeout') => new AppError('request_timeout', message);
export const unsupportedMediaType = (message: string) => new AppError('unsupported_media_type', message);
export const unavailable = (message: string, cause?: unknown) => new AppError('unavailable', message, undefined, { cause });

/** gRPC status codes (numeric, as in grpc.status) so this package needs no grpc dependency. */
export const GrpcCode = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

/** The one table: kind -> HTTP status and gRPC code (CONTRACT §4). */
export const ERROR_TABLE: Record<ErrorKind, { http: number; grpc: number }> = {
  validation: { http: 400, grpc: GrpcCode.INVALID_ARGUMENT },
  not_found: { http: 404, grpc: GrpcCode.NOT_FOUND },
  conflict: { http: 409, grpc: GrpcCode.FAILED_PRECONDITION },
  unprocessable: { http: 422, grpc: GrpcCode.ALREADY_EXISTS },
  unauthenticated: { http: 401, grpc: GrpcCode.UNAUTHENTICATED },
  forbidden: { http: 403, grpc: GrpcCode.PERMISSION_DENIED },
  too_large: { http: 413, grpc: GrpcCode.RESOURCE_EXHAUSTED },
  // Edge refusals of a request's form: a gRPC caller never sends one, so they read back as validation.
  uri_too_long: { http: 414, grpc: GrpcCode.INVALID_ARGUMENT },
  headers_too_large: { http: 431, grpc: GrpcCode.INVALID_ARGUMENT },
  request_timeout: { http: 408, grpc: GrpcCode.INVALID_ARGUMENT },
  unsupported_media_type: { http: 415, grpc: GrpcCode.INVALID_ARGUMENT },
  unavailable: { http: 503, grpc: GrpcCode.UNAVAILABLE },
  internal: { http: 500, grpc: GrpcCode.INTERNAL },
};

export function httpStatusOf(kind: ErrorKind): number {
  return ERROR_TABLE[kind].http;
}

export function grpcCodeOf(kind: ErrorKind): number {
  return ERROR_TABLE[kind].grpc;
}

/** Reverse of the table, for gRPC clients turning a status back into an AppError. */
export function kindOfGrpcCode(code: number): ErrorKind {
  switch (code) {
    case GrpcCode.INVALID_ARGUMENT:
    case GrpcCode.OUT_OF_RANGE:
      return 'validation';
    case GrpcCode.NOT_FOUND:
      return 'not_found';
    case GrpcCode.FAILED_PRECONDITION:
    case GrpcCode.ALREADY_EXISTS:
    case GrpcCode.ABORTED:
      return 'conflict';
    case GrpcCode.UNAUTHENTICATED:
      return 'unauthenticated';
    case GrpcCode.PERMISSION_DENIED:
      return 'forbidden';
    case GrpcCode.RESOURCE_EXHAUSTED:
      return 'too_large';
    case GrpcCode.UNAVAILABLE:
    case GrpcCode.DEADLINE_EXCEEDED:
    case GrpcCode.CANCELLED:
      return 'unavailable';
    default:
      return 'internal';
  }
}

/** The kind of a 4xx status that an HTTP library (body parser, router) reports, if it is one of ours. */
export function kindOfHttpStatus(status: number): ErrorKind | undefined {
  const found = (Object.entries(ERROR_TABLE) as [ErrorKind, { http: number }][]).find(([, v]) => v.http === status);
  return found && status >= 400 && status < 500 ? found[0] : undefined;
}

/** Anything thrown, as an AppError; unknown errors become `internal` and keep their cause. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  return new AppError('internal', 'Internal server error', undefined, { cause: err });
}

/** The JSON body every HTTP error carries (CONTRACT §4): `{error, ...details}`; never a stack. */
export function errorBody(err: AppError): Record<string, unknown> {
  return { ...(err.details ?? {}), error: err.message };
}
