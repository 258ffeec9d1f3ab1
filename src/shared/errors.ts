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
  introspection_not_allowed: { status: 403, title: 'Introspection needs an API key' },
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

/**
 * Whether `error` is the client's (an `ApiError` of status 4xx): an answer about the input, which a
 * caller may turn into "nothing found"; a 5xx (engines busy or timed out, the database away) is the
 * server's and must reach the client as it is, never read as an answer.
 */
export function isClientError(error: unknown): error is ApiError {
  return error instanceof ApiError && error.status < 500;
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

/** SQLSTATEs of a lost or refused database connection (admin or crash shutdown, starting up, class 08). */
const CONNECTION_LOST_STATES = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006']);
/** SQLSTATEs of a database out of a resource: disk full, out of memory, too many connections. */
const RESOURCE_STATES = new Set(['53100', '53200', '53300']);
/** Node errors of a socket to the database that broke. */
const SOCKET_ERROR_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT']);
/** Messages `pg` gives a connection ended under a query (no code of its own). */
const CONNECTION_ENDED = /^Connection terminated|^Client has encountered a connection error|^terminating connection/;

/**
 * When the database last refused a write for want of disk (53100), epoch milliseconds; 0 when
 * never. `/readyz` answers 503 for a while after it (src/db/readiness.ts), so a balancer stops
 * sending writes to an instance whose database cannot take them (audit N7).
 */
export const databaseFaults = { diskFullAt: 0 };

/** The 503 a client retries: the database is there but cannot serve this request right now. */
function retryableDatabaseError(message: string): ApiError {
  return new ApiError('service_unavailable', message, [], { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) });
}

/**
 * PostgreSQL errors a well-formed request can meet, as answers a client can act on: a statement
 * or lock timeout, a lost connection (audit N8) or a database out of disk or memory (N7) is a 503
 * with Retry-After; a deadlock or serialisation failure (one of two concurrent writes lost) is a
 * 409 conflict. Undefined for anything else.
 */
export function fromDatabaseError(error: unknown): ApiError | undefined {
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    switch (code) {
      case '57014':
        return retryableDatabaseError('The database did not answer in time; retry shortly.');
      case '55P03':
        return retryableDatabaseError('The data is locked by another operation; retry shortly.');
      case '40P01':
      case '40001':
        return new ApiError('conflict', 'A concurrent change to the same data won; read it again and retry.');
    }
    if (typeof code === 'string' && (CONNECTION_LOST_STATES.has(code) || SOCKET_ERROR_CODES.has(code)))
      return retryableDatabaseError('The connection to the database was lost; retry shortly.');
    if (typeof code === 'string' && RESOURCE_STATES.has(code)) {
      if (code === '53100') databaseFaults.diskFullAt = Date.now();
      return retryableDatabaseError('The database cannot take this request right now (out of disk, memory or connections); retry later.');
    }
    const message = (current as { message?: unknown }).message;
    if (typeof message === 'string' && CONNECTION_ENDED.test(message))
      return retryableDatabaseError('The connection to the database was lost; retry shortly.');
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
