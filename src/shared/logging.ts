import pino, { type Logger, type LoggerOptions } from 'pino';
import { activeTraceIds } from '../observability/tracing.js';

/** What replaces a value removed from a log line. */
const REDACTED = '[redacted]';

/**
 * Header paths never written to logs: the end-user session token and the keys. Fastify's request
 * serializer logs no headers today; this holds if a log line ever carries them.
 */
export const REDACTED_LOG_PATHS = [
  'req.headers["x-session-token"]',
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
];

/**
 * A request URL with every query value replaced: the end-user link carries its token in the
 * query (`/verify/{id}?token=…`), and list filters carry personal data (`vendor_data`). The keys
 * stay, so a log line still says which filters a request used.
 */
export function redactUrl(url: string): string {
  const mark = url.indexOf('?');
  if (mark < 0) return url;
  const query = url
    .slice(mark + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      return equals < 0 ? pair : `${pair.slice(0, equals)}=${REDACTED}`;
    })
    .join('&');
  return `${url.slice(0, mark)}?${query}`;
}

/** Fields of a PostgreSQL error that name code and schema objects, never request values. */
const SAFE_DATABASE_FIELDS = [
  'code',
  'sqlState',
  'severity',
  'routine',
  'schema',
  'table',
  'column',
  'dataType',
  'constraint',
  'position',
  'file',
  'line',
];

/** True for an error PostgreSQL answered (pg's DatabaseError, or MikroORM's DriverException copied from it). */
function isDatabaseError(error: Error): boolean {
  const fields = error as unknown as Record<string, unknown>;
  return typeof fields.severity === 'string' && typeof fields.routine === 'string';
}

/**
 * PostgreSQL's primary message without what quotes the input: `invalid input syntax for type
 * integer: "<value>"` names the value, and MikroORM appends ` - detail: …` (which, like `where`,
 * can quote a row: `JSON data … "first_name":"Ada…"`). Quoted identifiers go too; the `table`,
 * `column` and `constraint` fields keep them.
 */
function scrubDatabaseMessage(message: string): string {
  return message
    .split('\n')[0]!
    .replace(/"(?:[^"\\]|\\.)*"/g, `"${REDACTED}"`)
    .replace(/'(?:[^'\\]|\\.)*'/g, `'${REDACTED}'`);
}

/** A copy of a database error with only its safe fields, its message scrubbed and its stack frames kept. */
function scrubDatabaseError(error: Error): Error {
  const message = scrubDatabaseMessage(error.message);
  const scrubbed = new Error(message);
  scrubbed.name = error.name;
  const fields = error as unknown as Record<string, unknown>;
  for (const field of SAFE_DATABASE_FIELDS)
    if (fields[field] !== undefined) (scrubbed as unknown as Record<string, unknown>)[field] = fields[field];
  const frames = (error.stack ?? '').split('\n').filter((line) => line.trim().startsWith('at '));
  scrubbed.stack = [`${error.name}: ${message}`, ...frames].join('\n');
  return scrubbed;
}

/** Raw messages of every database error in an error tree (`cause`, `originalError`, `errors`). */
function databaseMessagesIn(error: unknown, seen = new Set<unknown>()): string[] {
  if (!(error instanceof Error) || seen.has(error)) return [];
  seen.add(error);
  const nested = error as unknown as { cause?: unknown; originalError?: unknown; errors?: unknown };
  const children = [nested.cause, nested.originalError, ...(Array.isArray(nested.errors) ? nested.errors : [])];
  return [...(isDatabaseError(error) ? [error.message] : []), ...children.flatMap((child) => databaseMessagesIn(child, seen))];
}

/**
 * The error tree with every database error replaced by its scrubbed copy, and every wrapper
 * (GraphQL's located error repeats its original's message) rid of the raw database messages.
 */
export function scrubErrorTree(error: unknown): unknown {
  const raw = databaseMessagesIn(error);
  if (raw.length === 0) return error;
  const rewrite = (text: string | undefined) =>
    raw.reduce((value, message) => value?.split(message).join(scrubDatabaseMessage(message)), text);
  const copy = (value: unknown, seen: Map<unknown, unknown>): unknown => {
    if (!(value instanceof Error)) return value;
    if (seen.has(value)) return seen.get(value);
    if (isDatabaseError(value)) {
      const scrubbed = scrubDatabaseError(value);
      seen.set(value, scrubbed);
      return scrubbed;
    }
    const wrapper = Object.create(Object.getPrototypeOf(value) as object) as Error & Record<string, unknown>;
    seen.set(value, wrapper);
    for (const key of Object.getOwnPropertyNames(value)) {
      const field = (value as unknown as Record<string, unknown>)[key];
      wrapper[key] = Array.isArray(field) ? field.map((item) => copy(item, seen)) : copy(field, seen);
    }
    wrapper.message = rewrite(value.message) ?? '';
    wrapper.stack = rewrite(value.stack);
    return wrapper;
  };
  return copy(error, new Map());
}

/** Fields of a GraphQL error that hold the operation's text (`source.body`) or its syntax tree (`nodes`), with any inline literals. */
const GRAPHQL_DOCUMENT_FIELDS = ['source', 'nodes', 'positions'] as const;

/**
 * The error tree without the GraphQL document (audit N16): a located error carries the whole
 * operation, and a name or date of birth passed as an inline literal would reach the log. The
 * message, path, locations and the original error stay.
 */
export function withoutGraphQLDocument(error: unknown, seen = new Map<unknown, unknown>()): unknown {
  if (!(error instanceof Error)) return error;
  if (seen.has(error)) return seen.get(error);
  const fields = error as unknown as Record<string, unknown>;
  const nested = ['originalError', 'cause'].filter((key) => fields[key] instanceof Error);
  if (!GRAPHQL_DOCUMENT_FIELDS.some((key) => fields[key] !== undefined) && nested.length === 0) return error;
  const copy = Object.create(Object.getPrototypeOf(error) as object) as Error & Record<string, unknown>;
  seen.set(error, copy);
  for (const key of Object.getOwnPropertyNames(error)) {
    if ((GRAPHQL_DOCUMENT_FIELDS as readonly string[]).includes(key)) continue;
    copy[key] = nested.includes(key) ? withoutGraphQLDocument(fields[key], seen) : fields[key];
  }
  for (const key of GRAPHQL_DOCUMENT_FIELDS) Object.defineProperty(copy, key, { value: undefined, enumerable: false });
  return copy;
}

/**
 * Log serializers of every logger the service makes: errors scrubbed of database details before
 * they are written (a PostgreSQL `detail`/`where` quotes the row a request sent) and of the
 * GraphQL operation's text, and requests logged with their query values redacted.
 */
export const LOG_SERIALIZERS = {
  err: (error: unknown) => pino.stdSerializers.err(withoutGraphQLDocument(scrubErrorTree(error)) as Error),
  req: (request: { method?: string; url?: string; host?: string; ip?: string; socket?: { remotePort?: number } }) => ({
    method: request.method,
    url: request.url === undefined ? undefined : redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  }),
};

/** pino options shared by the server, the emitter and the CLI. */
export function loggerOptions(level: LoggerOptions['level']): LoggerOptions {
  return {
    level,
    serializers: LOG_SERIALIZERS,
    redact: { paths: REDACTED_LOG_PATHS, censor: REDACTED },
    // Every line written inside a trace names it (`trace_id`, `span_id`); a request's lines also carry Fastify's `reqId`.
    mixin: () => activeTraceIds() ?? {},
  };
}

/**
 * The same logger with the service's serializers and redaction, whatever the caller built it
 * with (tests pass their own): the HTTP server logs through this.
 */
export function withRedaction(logger: Logger): Logger {
  return logger.child({}, { serializers: LOG_SERIALIZERS, redact: { paths: REDACTED_LOG_PATHS, censor: REDACTED } });
}
