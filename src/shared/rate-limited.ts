/**
 * The answer of every limit that is spent (docs/design.md "Rate limits and quotas"): 429
 * `rate_limited` with `Retry-After` and the IETF draft `RateLimit`/`RateLimit-Policy` headers. A
 * leaf, so the request limits of src/limits/ and the phone engine's per-number limits answer alike.
 */
import { ApiError } from './errors.js';

/** A named limit: `quota` units per `windowSeconds`. The name is what `RateLimit-Policy` calls it. */
export interface LimitPolicy {
  name: string;
  quota: number;
  windowSeconds: number;
}

/** Where a limit stands after a charge, for the `RateLimit` header of a successful answer. */
export interface LimitState {
  policy: LimitPolicy;
  remaining: number;
  resetSeconds: number;
}

/** `RateLimit-Policy` and `RateLimit` header values (draft-ietf-httpapi-ratelimit-headers). */
export function rateLimitHeaders(state: LimitState): Record<string, string> {
  const { policy } = state;
  return {
    'RateLimit-Policy': `"${policy.name}";q=${policy.quota};w=${policy.windowSeconds}`,
    RateLimit: `"${policy.name}";r=${Math.max(0, state.remaining)};t=${Math.max(0, state.resetSeconds)}`,
  };
}

/** The 429 every limit answers with: `Retry-After`, both headers, and the wait in the GraphQL extensions. */
export function rateLimitedError(policy: LimitPolicy, retryAfterSeconds: number, message: string): ApiError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  const error = new ApiError('rate_limited', `${message} Retry in ${seconds} s.`, [], {
    'Retry-After': String(seconds),
    ...rateLimitHeaders({ policy, remaining: 0, resetSeconds: seconds }),
  });
  // GraphQL clients cannot always read headers; the same numbers are in the error.
  error.extensions.retryAfterSeconds = seconds;
  error.extensions.policy = policy.name;
  return error;
}
