/**
 * Request rate limits and engine quotas (docs/design.md "Rate limits and quotas": 429 `rate_limited` with `Retry-After` and the
 * IETF draft `RateLimit`/`RateLimit-Policy` headers). Counters are rate-limiter-flexible's: in
 * PostgreSQL (table `rate_limit`) when the service runs on a server, so every instance shares
 * them, and in memory on the embedded database, which one process owns. On the server the
 * per-request limits take their points in reserved blocks (reserved-counter.ts), not one upsert per request.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Logger } from 'pino';
import type { Config } from '../shared/config.js';
import { rateLimitedError, type LimitPolicy, type LimitState } from '../shared/rate-limited.js';
import { CachedBlockCheck, ReservedCounter } from './reserved-counter.js';

/** The costly live engines that have an hourly quota per tenant and environment. */
export type QuotaEngine = 'document' | 'face' | 'poa';

/** Who pays for an engine run: one tenant in one environment. */
export interface QuotaScope {
  tenantId: string;
  environment: 'live' | 'sandbox';
}

/** What one API request is charged to before it runs. */
export interface RequestIdentity {
  /** The client address (the proxy's forwarded address with TRUST_PROXY). */
  address: string;
  /** The raw `x-api-key`, when sent; counted by its digest, valid or not. */
  apiKey?: string;
  /** The raw `x-session-token`, when sent. */
  sessionToken?: string;
}

/** Limits applied to API requests, failed authentications and engine runs. */
export interface RateLimits {
  /** False when RATE_LIMIT_ENABLED is off: every charge passes and no header is set. */
  readonly enabled: boolean;
  /**
   * Charges one request to its address, key and session link; throws `rate_limited` when one is
   * spent, when its credential failed too often, or when its address did and `vouch` (does the
   * request carry a credential that authenticates?) says no: a valid key is never refused for
   * someone else's failures at the same address (a NAT, a proxy). Returns the tightest state for
   * the `RateLimit` header.
   */
  chargeRequest(identity: RequestIdentity, vouch?: () => Promise<boolean>): Promise<LimitState | null>;
  /** Counts a failed authentication against its address and the credential it presented; past the limit each is blocked. */
  recordAuthFailure(address: string, credential?: string): Promise<void>;
  /** Charges one live engine run to a tenant's hourly quota; throws `rate_limited` when it is spent. */
  chargeEngine(scope: QuotaScope, engine: QuotaEngine): Promise<void>;
  /** Releases the counters' database connections. */
  close(): Promise<void>;
}

/** The names the policies carry in `RateLimit-Policy` and in error messages. */
const POLICY_NAMES = {
  key: 'key',
  address: 'address',
  sessionToken: 'session_link',
  authFailures: 'auth_failures',
} as const;

/** Seconds in an hour, the window of the engine quotas. */
const QUOTA_WINDOW_SECONDS = 3600;

/** Most connections the counters use on a PostgreSQL server (one upsert per charge, never held). */
const COUNTER_POOL_MAX = 4;

/** A short, stable digest of a credential, so counters never hold a key or a token. */
function digest(value: string): string {
  return createHash('sha256').update(value).digest('base64url').slice(0, 24);
}

/** One limit and the counter behind it. */
interface Limiter {
  policy: LimitPolicy;
  /** Takes one point; throws a RateLimiterRes when none is left. */
  consume(id: string): Promise<{ remainingPoints: number; msBeforeNext: number }>;
  /** The count of `id` (null when it has none). */
  get(id: string): Promise<RateLimiterRes | null>;
}

/** The policies a configuration sets. */
export function policiesOf(
  config: Config,
): Record<'key' | 'address' | 'sessionToken' | 'authFailures', LimitPolicy> & Record<QuotaEngine, LimitPolicy> {
  return {
    key: { name: POLICY_NAMES.key, quota: config.RATE_LIMIT_KEY_REQUESTS, windowSeconds: config.RATE_LIMIT_KEY_WINDOW_SECONDS },
    address: {
      name: POLICY_NAMES.address,
      quota: config.RATE_LIMIT_ADDRESS_REQUESTS,
      windowSeconds: config.RATE_LIMIT_ADDRESS_WINDOW_SECONDS,
    },
    sessionToken: {
      name: POLICY_NAMES.sessionToken,
      quota: config.RATE_LIMIT_SESSION_TOKEN_REQUESTS,
      windowSeconds: config.RATE_LIMIT_SESSION_TOKEN_WINDOW_SECONDS,
    },
    authFailures: {
      name: POLICY_NAMES.authFailures,
      quota: config.RATE_LIMIT_AUTH_FAILURES,
      windowSeconds: config.RATE_LIMIT_AUTH_FAILURE_WINDOW_SECONDS,
    },
    document: { name: 'document_quota', quota: config.QUOTA_DOCUMENT_PER_HOUR, windowSeconds: QUOTA_WINDOW_SECONDS },
    face: { name: 'face_quota', quota: config.QUOTA_FACE_PER_HOUR, windowSeconds: QUOTA_WINDOW_SECONDS },
    poa: { name: 'poa_quota', quota: config.QUOTA_POA_PER_HOUR, windowSeconds: QUOTA_WINDOW_SECONDS },
  };
}

/** What {@link createRateLimits} needs. */
export interface RateLimitsOptions {
  config: Config;
  logger: Logger;
  /** The PostgreSQL server's URL, to share counters between instances; absent on the embedded database. */
  databaseUrl?: string;
}

/** Builds the limits of a configuration: PostgreSQL counters with DATABASE_URL, memory otherwise. */
export function createRateLimits(options: RateLimitsOptions): RateLimits {
  const { config, logger } = options;
  if (!config.RATE_LIMIT_ENABLED) return disabledRateLimits;
  const pool = options.databaseUrl
    ? new pg.Pool({ connectionString: options.databaseUrl, max: COUNTER_POOL_MAX, application_name: 'idv-rate-limits' })
    : null;
  // A counter error (the database restarting) must not fail requests: the pool logs and recovers.
  pool?.on('error', (error) => logger.warn({ err: error }, 'rate-limit counter connection failed'));

  /**
   * `reserved`: charged on every request, so on the server a process reserves blocks of points
   * and spends them in memory (reserved-counter.ts); the failure counters are written only on a
   * 401 and their checks reuse a read for a second.
   */
  const build = (policy: LimitPolicy, prefix: string, blockSeconds = 0, reserved = false): Limiter => {
    const base = { keyPrefix: `rl_${prefix}`, points: policy.quota, duration: policy.windowSeconds, blockDuration: blockSeconds };
    // While the database does not answer, each instance counts alone in memory (the insurance limiter).
    const counter: RateLimiterAbstract = pool
      ? new RateLimiterPostgres({
          ...base,
          storeClient: pool,
          storeType: 'pool',
          tableName: 'rate_limit',
          tableCreated: true,
          clearExpiredByTimeout: true,
          insuranceLimiter: new RateLimiterMemory(base),
        })
      : new RateLimiterMemory(base);
    if (!pool) return { policy, consume: (id) => counter.consume(id), get: (id) => counter.get(id) };
    if (reserved) {
      const shared = new ReservedCounter(counter, policy.quota);
      return { policy, consume: (id) => shared.consume(id), get: (id) => counter.get(id) };
    }
    const checked = new CachedBlockCheck(counter);
    return { policy, consume: (id) => checked.consume(id), get: (id) => checked.get(id) };
  };

  const policies = policiesOf(config);
  const key = build(policies.key, 'key', 0, true);
  const address = build(policies.address, 'addr', 0, true);
  const sessionToken = build(policies.sessionToken, 'link', 0, true);
  const authFailures = build(policies.authFailures, 'authfail', config.RATE_LIMIT_AUTH_FAILURE_BLOCK_SECONDS);
  // The same policy per failing credential: one wrong key tried from many addresses is stopped too.
  const credentialFailures = build(policies.authFailures, 'authfail_cred', config.RATE_LIMIT_AUTH_FAILURE_BLOCK_SECONDS);
  const engines: Record<QuotaEngine, Limiter> = {
    document: build(policies.document, 'q_document'),
    face: build(policies.face, 'q_face'),
    poa: build(policies.poa, 'q_poa'),
  };

  /** Consumes one unit; resolves with the state, or throws the 429 when the limit is spent. */
  const charge = async (limiter: Limiter, id: string, message: string): Promise<LimitState> => {
    try {
      const result = await limiter.consume(id);
      return { policy: limiter.policy, remaining: result.remainingPoints, resetSeconds: Math.ceil(result.msBeforeNext / 1000) };
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) throw rateLimitedError(limiter.policy, rejection.msBeforeNext / 1000, message);
      throw rejection;
    }
  };

  return {
    enabled: true,
    async chargeRequest(identity, vouch) {
      const charges = [charge(address, identity.address, 'Too many requests from this address.')];
      if (identity.apiKey) charges.push(charge(key, digest(identity.apiKey), 'Too many requests with this API key.'));
      else if (identity.sessionToken)
        charges.push(charge(sessionToken, digest(identity.sessionToken), 'Too many requests for this verification link.'));
      const credential = identity.apiKey ?? identity.sessionToken;
      // One round trip to the counters: the block checks go out with the charges.
      const [addressCheck, credentialCheck, ...outcomes] = await Promise.allSettled([
        authFailures.get(identity.address),
        credential ? credentialFailures.get(digest(credential)) : Promise.resolve(null),
        ...charges,
      ]);
      if (addressCheck.status === 'rejected') throw addressCheck.reason;
      if (credentialCheck.status === 'rejected') throw credentialCheck.reason;
      const over = (result: RateLimiterRes | null) => result !== null && result.consumedPoints > authFailures.policy.quota;
      if (over(credentialCheck.value))
        throw rateLimitedError(
          authFailures.policy,
          credentialCheck.value!.msBeforeNext / 1000,
          'Too many failed authentications with this credential; it is refused for a while.',
        );
      if (over(addressCheck.value) && !(vouch && (await vouch())))
        throw rateLimitedError(
          authFailures.policy,
          addressCheck.value!.msBeforeNext / 1000,
          'Too many failed authentications from this address; requests from it without a valid credential are refused for a while.',
        );
      const refused = outcomes.find((outcome) => outcome.status === 'rejected');
      if (refused) throw refused.reason;
      const states = outcomes.map((outcome) => (outcome as PromiseFulfilledResult<LimitState>).value);
      // The header names the limit the client is closest to (the key's, mostly).
      return states.reduce((tightest, state) =>
        state.remaining / state.policy.quota < tightest.remaining / tightest.policy.quota ? state : tightest,
      );
    },
    async recordAuthFailure(addressValue, credential) {
      const counted = [authFailures.consume(addressValue)];
      if (credential) counted.push(credentialFailures.consume(digest(credential)));
      for (const outcome of await Promise.allSettled(counted)) {
        // Over the limit (a RateLimiterRes): blocked now; the next request is refused by chargeRequest.
        if (outcome.status === 'rejected' && !(outcome.reason instanceof RateLimiterRes)) throw outcome.reason;
      }
    },
    async chargeEngine(scope, engine) {
      await charge(
        engines[engine],
        `${scope.tenantId}:${scope.environment}`,
        `This tenant has used its hourly quota of ${engines[engine].policy.quota} ${engine} verifications in ${scope.environment}.`,
      );
    },
    async close() {
      await pool?.end();
    },
  };
}

/** Limits switched off (RATE_LIMIT_ENABLED=false): nothing is counted, nothing refused. */
export const disabledRateLimits: RateLimits = {
  enabled: false,
  async chargeRequest() {
    return null;
  },
  async recordAuthFailure() {},
  async chargeEngine() {},
  async close() {},
};
