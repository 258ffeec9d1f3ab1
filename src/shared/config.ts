import { z } from 'zod';
import ipaddr from 'ipaddr.js';

/** proxy-addr's names for address ranges, accepted in TRUSTED_PROXIES as well. */
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** The default webhook retry schedule (WEBHOOK_RETRY_SCHEDULE_SECONDS), as in docs/design.md "Events and webhooks", in seconds before each attempt: at once, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h. */
export const DEFAULT_RETRY_SCHEDULE_SECONDS = [0, 5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400] as const;

/** True when `entry` is a TRUSTED_PROXIES entry: an IPv4/IPv6 address, a CIDR, or a range name. */
export function isTrustedProxyEntry(entry: string): boolean {
  if (RANGE_NAMES.has(entry)) return true;
  if (entry.includes('/')) {
    try {
      ipaddr.parseCIDR(entry);
      return true;
    } catch {
      return false;
    }
  }
  return ipaddr.isValid(entry);
}

/**
 * Configuration, read once from the environment and validated at start-up: a bad setting stops
 * the process with a message naming the variable. `.env.example` documents every variable.
 */
const booleanFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

/** Longest session lifetime SESSION_TTL_SECONDS may set, in seconds (one year). */
export const SESSION_TTL_MAX_SECONDS = 365 * 24 * 3600;

const ConfigSchema = z.object({
  /** TCP port of the HTTP server (REST, GraphQL, WebSocket); 0 picks a free one. */
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Interface the HTTP server binds to. */
  HOST: z.string().min(1).default('127.0.0.1'),
  /** PostgreSQL server URL; when absent the embedded PGlite database is used. */
  DATABASE_URL: z.string().url().optional(),
  /** Directory of the embedded database's files; `memory` keeps it in memory (tests). */
  PGLITE_DATA_DIR: z.string().min(1).default('./.data/pglite'),
  /**
   * Directory where a server on the embedded database registers its data directory while it runs,
   * so the admin CLI finds it whatever PGLITE_DATA_DIR the CLI was given. Default: <tmp>/openkyc-<uid>.
   */
  RUNTIME_DIR: z.string().min(1).optional(),
  /** Address clients reach this service at; used to build session URLs. Defaults to http://HOST:PORT. */
  PUBLIC_URL: z.string().url().optional(),
  /** Apply pending migrations when the server starts. */
  MIGRATE_ON_START: booleanFromEnv.default(true),
  /** Largest accepted request body, in bytes (default 15 MB). */
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(15 * 1024 * 1024),
  /** pino log level. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Create a demo tenant and print its key when the database holds no tenant yet. */
  SEED_DEMO_TENANT: booleanFromEnv.default(true),
  /** Secret (at least 32 characters) that wraps the data keys of every secret sealed at rest; generated into the data dir (`master.key`) when absent in embedded mode. */
  MASTER_KEY: z.string().min(32).optional(),
  /** Allow plain-HTTP loopback webhook URLs (development only). */
  DEV_ALLOW_LOOPBACK_WEBHOOKS: booleanFromEnv.default(false),
  /**
   * Keep the listed AML names in an in-memory trigram index (~115 bytes per listed name) so screens do
   * not scan pg_trgm's GIN index; off, every screen runs the pg_trgm query (same results, slower).
   */
  AML_NAME_INDEX: booleanFromEnv.default(true),
  /** Run the webhook emitter (outbox fan-out and signed deliveries) inside the server; `npm run emitter` runs it alone. */
  EMITTER_IN_PROCESS: booleanFromEnv.default(true),
  /** Webhook retry schedule: delays in seconds (decimals allowed) before each attempt, the first normally 0; ±20% jitter is added. */
  WEBHOOK_RETRY_SCHEDULE_SECONDS: z
    .string()
    .regex(/^\s*\d+(\.\d+)?(\s*,\s*\d+(\.\d+)?)*\s*$/, 'a comma-separated list of seconds, e.g. 0,5,300')
    .default(DEFAULT_RETRY_SCHEDULE_SECONDS.join(','))
    .transform((value) => value.split(',').map((part) => Number(part.trim()))),
  /** How long a claimed webhook delivery stays reserved for the emitter that claimed it, in seconds; after that (a crashed emitter) another may send it. */
  WEBHOOK_CLAIM_LEASE_SECONDS: z.coerce.number().min(0.1).default(60),
  /** Longest one webhook attempt may take, connect to last byte, in seconds; past it the attempt fails and is retried on the schedule. */
  WEBHOOK_TIMEOUT_SECONDS: z.coerce.number().min(1).max(300).default(15),
  /** How often the emitter looks for new events and due retries when nothing wakes it, in milliseconds. */
  EMITTER_POLL_INTERVAL_MS: z.coerce.number().int().min(10).default(1000),
  /** Deliveries one emitter sends at once (open sockets to receivers). */
  WEBHOOK_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(10_000).default(256),
  /** Deliveries one emitter sends at once to one destination (or one callback URL), so a slow receiver holds few sockets. */
  WEBHOOK_MAX_IN_FLIGHT_PER_DESTINATION: z.coerce.number().int().min(1).max(1_000).default(16),
  /** Deliveries one emitter sends at once for one tenant, so one tenant's slow endpoints cannot take every socket. */
  WEBHOOK_MAX_IN_FLIGHT_PER_TENANT: z.coerce.number().int().min(1).max(10_000).default(32),
  /** Run the background job runner (pg-boss: session expiry sweep, AML re-screening after list changes) inside this process. */
  JOBS_ENABLED: booleanFromEnv.default(true),
  /** Lifetime of a new session, in seconds (default 7 days, at most 1 year so expiry stays a sane date). */
  SESSION_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(SESSION_TTL_MAX_SECONDS)
    .default(7 * 24 * 3600),
  /**
   * Longest a database statement of a request may run, in milliseconds, before PostgreSQL cancels it
   * and the client gets a 503 (0 disables). Applies to a PostgreSQL server; migrations are exempt.
   */
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  /**
   * Longest a request waits for a row or table lock, in milliseconds, before giving up with a 503
   * (0 disables): nothing waits forever behind a lock someone else holds. PostgreSQL server only.
   */
  DB_LOCK_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(5_000),
  /** Deepest GraphQL selection accepted. */
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(2).default(12),
  /** Most aliases accepted in one GraphQL document. */
  GRAPHQL_MAX_ALIASES: z.coerce.number().int().min(1).default(30),
  /** Highest estimated cost (one point per selected field, multiplied by list page sizes) of one GraphQL operation. */
  GRAPHQL_MAX_COST: z.coerce.number().int().min(10).default(50_000),
  /** Most operations one graphql-ws socket may have running at once; more are refused with TOO_MANY_SUBSCRIPTIONS. */
  WS_MAX_SUBSCRIPTIONS_PER_SOCKET: z.coerce.number().int().min(1).max(10_000).default(100),
  /** Most graphql-ws sockets one tenant may hold open on one server; more are closed with 4430. */
  WS_MAX_SOCKETS_PER_TENANT: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  /**
   * Most graphql-ws sockets one client address (TRUSTED_PROXIES decides it, as for HTTP) may hold
   * open on one server before its sockets are signed in with an API key; more are closed with
   * 4430 (audit N5). A socket with a valid key counts for its tenant instead, so a backend behind a
   * shared address is never refused for the page sockets around it.
   */
  WS_MAX_SOCKETS_PER_ADDRESS: z.coerce.number().int().min(1).max(1_000_000).default(1_000),
  /** How phone one-time codes are delivered: `log` writes them to the log (development only), `http` posts them to an SMS gateway. */
  SMS_PROVIDER: z.enum(['log', 'http']).default('log'),
  /** SMS gateway endpoint that receives `POST {"to","text"}` JSON; required when SMS_PROVIDER is `http`. */
  SMS_GATEWAY_URL: z.string().url().optional(),
  /** Bearer token sent to the SMS gateway in `Authorization`, when the gateway wants one. */
  SMS_GATEWAY_TOKEN: z.string().min(1).optional(),
  /** PEM bundle of CSCA certificates that NFC Document Signer certificates must chain to; without it a valid chip signature is only a `warning`. */
  NFC_CSCA_CERTS_PATH: z.string().min(1).optional(),
  /** Signer certificates of ICAO visible digital seals (PEM bundle, DER file or a directory of them); without them a seal is reported `not_verified`, never verified. */
  VDS_SIGNER_CERTS_PATH: z.string().min(1).optional(),
  /**
   * Where CPU-bound engine work (document, face, proof of address, OCR) runs: `pool` in worker
   * threads of this process, `queue` in separate `npm run worker` processes fed by a pg-boss queue
   * (needs DATABASE_URL), `inline` on the API's own event loop (the old path, for comparison only).
   */
  ENGINE_EXECUTION: z.enum(['pool', 'queue', 'inline']).default('pool'),
  /** Worker threads of the engine pool (in the API, and in each `npm run worker` process); default: the machine's cores. */
  ENGINE_POOL_SIZE: z.coerce.number().int().min(1).optional(),
  /**
   * Engine tasks that may wait for a free thread (pool), or that one API server keeps outstanding
   * on the queue; past it a verification is refused with 503 `engines_busy` and `Retry-After`.
   */
  ENGINE_QUEUE_LIMIT: z.coerce.number().int().min(0).default(32),
  /** Time budget of one engine call, waiting included, in milliseconds; past it the work is aborted and the call answers 503 `engine_timeout`. */
  ENGINE_TIMEOUT_MS: z.coerce.number().int().min(10).default(60_000),
  /**
   * How often (seconds) queue workers look for engine jobs whose worker stopped sending heartbeats
   * (a crashed or killed process) so another worker retries them.
   */
  ENGINE_QUEUE_SUPERVISE_SECONDS: z.coerce.number().int().min(1).default(5),
  /** Most bytes all streams of one uploaded PDF may decode to, every filter stage and object stream counted (default 64 MB); over it the PDF is refused with a 400. */
  PDF_MAX_DECODED_BYTES: z.coerce
    .number()
    .int()
    .min(1024 * 1024)
    .max(2 * 1024 * 1024 * 1024)
    .default(64 * 1024 * 1024),
  /** Heap of the worker thread that reads one PDF, in MB; a PDF that needs more is refused with a 400. */
  PDF_WORKER_MEMORY_MB: z.coerce.number().int().min(16).max(8192).default(256),
  /** Most milliseconds reading one PDF may take from when a ready worker thread starts on it (the wait and the thread start count against ENGINE_TIMEOUT_MS); then the thread is terminated and the PDF refused with a 400. */
  PDF_WORKER_TIMEOUT_MS: z.coerce.number().int().min(10).max(600_000).default(10_000),
  /**
   * Take the client address from X-Forwarded-For (behind a reverse proxy or load balancer):
   * without it every client shares the proxy's address, and per-address limits would throttle all.
   */
  TRUST_PROXY: booleanFromEnv.default(false),
  /**
   * The reverse proxies in front of this service, whose X-Forwarded-For entries are believed: a
   * hop count (`1`: the one proxy in front) or a comma-separated list of addresses, CIDRs and
   * `loopback`/`linklocal`/`uniquelocal`. The client is the first address, from the socket
   * outwards, that is not a trusted proxy, for HTTP and WebSockets alike. Overrides TRUST_PROXY,
   * which alone now means one hop.
   */
  TRUSTED_PROXIES: z
    .string()
    .trim()
    .optional()
    .superRefine((value, context) => {
      if (value === undefined || /^\d+$/.test(value)) return;
      const bad = value
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => !isTrustedProxyEntry(entry));
      if (bad.length > 0) context.addIssue({ code: 'custom', message: `not an address, CIDR or hop count: ${bad.join(', ')}` });
    })
    .transform((value) =>
      value === undefined ? undefined : /^\d+$/.test(value) ? Number(value) : value.split(',').map((entry) => entry.trim()),
    ),
  /** Failed sign-ins (wrong password or one-time code) one address may make for one e-mail address per SIGN_IN_FAILURE_WINDOW_SECONDS; then that pair is refused (429 account_locked) until the window ends. Other addresses are not. */
  SIGN_IN_MAX_FAILURES: z.coerce.number().int().min(1).max(1000).default(5),
  /** Window and lock duration of SIGN_IN_MAX_FAILURES, in seconds. */
  SIGN_IN_FAILURE_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(900),
  /** Failed sign-ins for one e-mail address from all addresses together after which every further attempt on it is slowed (never refused): a stranger cannot lock an operator out. */
  SIGN_IN_ACCOUNT_SLOW_AFTER: z.coerce.number().int().min(1).max(100_000).default(20),
  /** How long each attempt on an account past SIGN_IN_ACCOUNT_SLOW_AFTER waits before its password is checked, in milliseconds. */
  SIGN_IN_ACCOUNT_DELAY_MS: z.coerce.number().int().min(0).max(10_000).default(1000),
  /** How often the last use of each API key (time and address, noted in memory per request) is written, in seconds: the longest the console's "last used" lags. */
  API_KEY_USAGE_FLUSH_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  /** How long an operator invitation link works, in seconds (default 7 days). */
  INVITATION_TTL_SECONDS: z.coerce.number().int().min(300).max(2_592_000).default(604_800),
  /**
   * Origins whose pages may call the API from a browser (CORS), comma-separated (`https://app.example.com`),
   * or `*` for any (no credentials either way); default none. The console's routes never answer CORS.
   */
  CORS_ORIGINS: z
    .string()
    .trim()
    .optional()
    .superRefine((value, context) => {
      if (value === undefined || value === '*') return;
      const isOrigin = (entry: string) => {
        try {
          return new URL(entry).origin === entry;
        } catch {
          return false;
        }
      };
      const bad = value
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => !isOrigin(entry));
      if (bad.length > 0) context.addIssue({ code: 'custom', message: `not an origin (scheme://host[:port]): ${bad.join(', ')}` });
    })
    .transform((value) => (value === undefined ? [] : value === '*' ? '*' : value.split(',').map((entry) => entry.trim()))),
  /** Enforce the request rate limits and engine quotas below (429 `rate_limited` past them). */
  RATE_LIMIT_ENABLED: booleanFromEnv.default(true),
  /** Requests one API key may make per RATE_LIMIT_KEY_WINDOW_SECONDS (REST, GraphQL and subscribe messages together). */
  RATE_LIMIT_KEY_REQUESTS: z.coerce.number().int().min(1).default(100),
  /** Window of RATE_LIMIT_KEY_REQUESTS, in seconds. */
  RATE_LIMIT_KEY_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(1),
  /** Requests one client address may make per RATE_LIMIT_ADDRESS_WINDOW_SECONDS, whatever it authenticates with. */
  RATE_LIMIT_ADDRESS_REQUESTS: z.coerce.number().int().min(1).default(200),
  /** Window of RATE_LIMIT_ADDRESS_REQUESTS, in seconds. */
  RATE_LIMIT_ADDRESS_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(1),
  /** Requests one end-user session link (x-session-token) may make per RATE_LIMIT_SESSION_TOKEN_WINDOW_SECONDS. */
  RATE_LIMIT_SESSION_TOKEN_REQUESTS: z.coerce.number().int().min(1).default(20),
  /** Window of RATE_LIMIT_SESSION_TOKEN_REQUESTS, in seconds. */
  RATE_LIMIT_SESSION_TOKEN_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(1),
  /** Failed authentications (401) one client address may cause per RATE_LIMIT_AUTH_FAILURE_WINDOW_SECONDS before it is blocked. */
  RATE_LIMIT_AUTH_FAILURES: z.coerce.number().int().min(1).default(20),
  /** Window of RATE_LIMIT_AUTH_FAILURES, in seconds. */
  RATE_LIMIT_AUTH_FAILURE_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  /** How long an address that exceeded RATE_LIMIT_AUTH_FAILURES is refused (every request 429), in seconds. */
  RATE_LIMIT_AUTH_FAILURE_BLOCK_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  /** Live ID-document verifications one tenant may run per hour in one environment (session steps and standalone checks). */
  QUOTA_DOCUMENT_PER_HOUR: z.coerce.number().int().min(1).default(2_000),
  /** Live face analyses (selfies, face list entries) one tenant may run per hour in one environment. */
  QUOTA_FACE_PER_HOUR: z.coerce.number().int().min(1).default(2_000),
  /** Live proof-of-address analyses one tenant may run per hour in one environment. */
  QUOTA_POA_PER_HOUR: z.coerce.number().int().min(1).default(2_000),
  /** Distinct phone numbers one session may send codes to (the end user picks the number: SMS pumping). */
  OTP_MAX_NUMBERS_PER_SESSION: z.coerce.number().int().min(1).default(3),
  /** Distinct phone numbers one tenant may send codes to per hour in one environment. */
  OTP_MAX_NUMBERS_PER_TENANT_HOUR: z.coerce.number().int().min(1).default(500),
  /**
   * Bearer token that opens `GET /metrics` on the API port (at least 32 characters). Without it
   * (and without METRICS_PORT) the metrics are not served: they name routes, tenants' backlogs
   * and engine load, which are not for the public.
   */
  METRICS_TOKEN: z.string().min(32).optional(),
  /** Port of a separate metrics listener (only `GET /metrics`, no token), for a scraper on a private interface. */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** Interface the metrics listener binds to: loopback unless the operator opens it to the scrape network. */
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /** OTLP/HTTP collector base URL (e.g. http://127.0.0.1:4318): spans are exported to `<url>/v1/traces`. Unset: none recorded. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  /** `service.name` of this process's spans; each kind of process gets its own suffix (`-worker`, `-emitter`) when left default. */
  OTEL_SERVICE_NAME: z.string().min(1).default('openkyc'),
});

/** The validated configuration. */
export type Config = z.infer<typeof ConfigSchema>;

/** Raised when the environment holds an invalid setting; the message names every bad variable. */
export class ConfigError extends Error {}

/** Parses and validates configuration from an environment map (process.env by default). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = ConfigSchema.safeParse(cleaned);
  if (parsed.success) {
    // A gateway provider without an address would fail on the first code; stop at start-up instead.
    if (parsed.data.SMS_PROVIDER === 'http' && !parsed.data.SMS_GATEWAY_URL)
      throw new ConfigError('Invalid configuration:\n  SMS_GATEWAY_URL: required when SMS_PROVIDER is http');
    // Worker processes reach jobs through a PostgreSQL server; the embedded database is this process's alone.
    if (parsed.data.ENGINE_EXECUTION === 'queue' && !parsed.data.DATABASE_URL)
      throw new ConfigError(
        'Invalid configuration:\n  ENGINE_EXECUTION: queue needs DATABASE_URL (a PostgreSQL server); the embedded database keeps engines in the pool',
      );
    return parsed.data;
  }
  const problems = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`).join('\n');
  throw new ConfigError(`Invalid configuration:\n${problems}`);
}
