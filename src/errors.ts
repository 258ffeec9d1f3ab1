import { GraphQLError } from 'graphql';

/**
 * The one error catalogue shared by REST and GraphQL. A code maps to an HTTP status and a title;
 * REST renders RFC 9457 problem details, GraphQL puts the upper-case code in `extensions.code`.
 */
export const ERROR_CATALOGUE = {
  validation_failed: { status: 400, title: 'Validation failed' },
  malformed_json: { status: 400, title: 'Malformed JSON body' },
  share_to_self: { status: 400, title: 'A session cannot be shared with its own application' },
  redirect_not_allowed: { status: 400, title: 'Redirect URL not allowed' },
  unauthenticated: { status: 401, title: 'Unauthenticated' },
  second_factor_required: { status: 401, title: 'One-time code required' },
  forbidden: { status: 403, title: 'Forbidden' },
  workflow_read_only: { status: 403, title: 'Built-in workflows are read-only' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  conflict: { status: 409, title: 'Conflict' },
  invalid_transition: { status: 409, title: 'Invalid status transition' },
  session_claimed: { status: 409, title: 'Case claimed by another operator' },
  last_admin: { status: 409, title: 'The last admin cannot be removed' },
  session_not_shareable: { status: 409, title: 'Session cannot be shared' },
  share_token_redeemed: { status: 409, title: 'Share token already redeemed' },
  workflow_in_use: { status: 409, title: 'Workflow is used by active sessions' },
  share_token_expired: { status: 410, title: 'Share token expired' },
  link_expired: { status: 410, title: 'Link expired' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  headers_too_large: { status: 431, title: 'Request header fields too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  document_too_old: { status: 422, title: 'Document too old' },
  otp_invalid: { status: 422, title: 'Wrong one-time code' },
  otp_expired: { status: 422, title: 'One-time code expired' },
  provider_unavailable: { status: 422, title: 'Provider unavailable' },
  rate_limited: { status: 429, title: 'Too many requests' },
  account_locked: { status: 429, title: 'Account locked after repeated wrong passwords' },
  too_many_subscriptions: { status: 429, title: 'Too many operations on one connection' },
  query_too_complex: { status: 400, title: 'Query too complex' },
  internal_error: { status: 500, title: 'Internal error' },
  service_unavailable: { status: 503, title: 'Service unavailable' },
  engines_busy: { status: 503, title: 'Verification engines busy' },
  engine_timeout: { status: 503, title: 'Verification took too long' },
} as const satisfies Record<string, { status: number; title: string }>;

/** A code of the catalogue. */
export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** One problem with one input field. */
export interface FieldError {
  /** Path of the field in the request, snake_case as the client sent it (e.g. `nodes[1].type`). */
  field: string;
  /** Machine-readable reason (`required`, `invalid`, `unknown_value`, ...). */
  code: string;
  /** Human-readable explanation. */
  message: string;
}

/**
 * An error a client can cause; carries its catalogue code and, for validation, the field errors.
 * It is a GraphQLError so that resolvers throw it as is and both transports read the same object.
 */
export class ApiError extends GraphQLError {
  /** HTTP status of the code, from the catalogue. */
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly fieldErrors: FieldError[] = [],
    /** Extra headers for REST (e.g. `Retry-After`). */
    readonly headers: Record<string, string> = {},
  ) {
    const status = ERROR_CATALOGUE[code].status;
    super(message ?? ERROR_CATALOGUE[code].title, {
      extensions: {
        code: code.toUpperCase(),
        // Apollo copies `http.headers` onto the GraphQL HTTP response, so Retry-After reaches both transports.
        http: {
          status: code === 'unauthenticated' ? 401 : 200,
          ...(Object.keys(headers).length > 0
            ? { headers: new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value])) }
            : {}),
        },
        ...(fieldErrors.length > 0 ? { fieldErrors } : {}),
      },
    });
    this.name = 'ApiError';
    this.status = status;
  }
}

/** Shorthand for a 400 with field errors. */
export function validationError(fieldErrors: FieldError[], message = 'The request has invalid fields.'): ApiError {
  return new ApiError('validation_failed', message, fieldErrors);
}

/** Shorthand for a 404 that does not reveal whether the resource exists for another tenant. */
export function notFound(what: string): ApiError {
  return new ApiError('not_found', `${what} not found.`);
}

/** Seconds a client is told to wait after the database timed out. */
const DATABASE_RETRY_AFTER_SECONDS = 1;

/**
 * PostgreSQL errors a well-formed request can meet under contention, as answers a client can act
 * on: a statement or lock timeout is a 503 with Retry-After; a deadlock or serialisation failure
 * (one of two concurrent writes lost) is a 409 conflict. Undefined for anything else.
 */
export function fromDatabaseError(error: unknown): ApiError | undefined {
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    switch ((current as { code?: unknown }).code) {
      case '57014':
        return new ApiError('service_unavailable', 'The database did not answer in time; retry shortly.', [], {
          'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS),
        });
      case '55P03':
        return new ApiError('service_unavailable', 'The data is locked by another operation; retry shortly.', [], {
          'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS),
        });
      case '40P01':
      case '40001':
        return new ApiError('conflict', 'A concurrent change to the same data won; read it again and retry.');
    }
    current = (current as { originalError?: unknown; cause?: unknown }).originalError ?? (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** RFC 9457 problem details body. */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  errors?: FieldError[];
  instance?: string;
}

/** Builds the RFC 9457 body for a catalogue error. */
export function toProblem(error: ApiError, instance?: string): ProblemDetails {
  return {
    type: `https://errors.openkyc.dev/${error.code}`,
    title: ERROR_CATALOGUE[error.code].title,
    status: error.status,
    detail: error.message,
    code: error.code,
    ...(error.fieldErrors.length > 0 ? { errors: error.fieldErrors } : {}),
    ...(instance ? { instance } : {}),
  };
}
