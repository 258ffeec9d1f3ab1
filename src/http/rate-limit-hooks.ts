/**
 * The HTTP side of the rate limits (src/limits/rate-limits.ts): every request except the health
 * probes is charged to its address and its key or session link before it is parsed; a 401 counts
 * against the address. Answers carry the `RateLimit`/`RateLimit-Policy` headers of the tightest
 * limit; a refusal is a 429 with `Retry-After`, as problem details on REST and as a GraphQL error
 * on `/graphql`.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, toProblem } from '../shared/errors.js';
import type { RateLimits, RequestIdentity } from '../limits/rate-limits.js';
import { rateLimitHeaders } from '../shared/rate-limited.js';

/**
 * graphql-ws close code for a connection refused by a rate limit (4429, after HTTP's 429). Ours:
 * graphql-ws's `CloseCode` has no rate-limit code; its 4429 is `TooManyInitialisationRequests`
 * (a second connection_init), told apart by the close reason. Either way graphql-ws's own client
 * does not reconnect after a 4429: a refused client does not hammer the server, its own code retries.
 */
export const WS_CLOSE_RATE_LIMITED = 4429;

/** Paths no limit applies to: the orchestrator's probes must answer whatever clients do. */
const UNLIMITED_PATHS = new Set(['/healthz', '/readyz']);

/** Reads a single-valued header; a repeated header is not a credential. */
function single(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** Who a request is charged to: its address, and its API key or session link when it sends one. */
export function identityOf(address: string, headers: Record<string, string | string[] | undefined>): RequestIdentity {
  return { address, apiKey: single(headers['x-api-key']), sessionToken: single(headers['x-session-token']) };
}

/** Whether a request's headers carry a credential that authenticates (an API key, a console sign-in). */
export type Vouch = (headers: FastifyRequest['headers']) => Promise<boolean>;

/**
 * Installs the charge on every request and the failed-authentication count on every 401 (against
 * the address and the credential presented); `vouch` lets a valid credential through an address
 * blocked for other clients' failures.
 */
export function registerRateLimits(app: FastifyInstance, limits: RateLimits, vouch: Vouch): void {
  if (!limits.enabled) return;
  app.addHook('onRequest', async (request, reply) => {
    const path = request.url.split('?')[0]!;
    if (UNLIMITED_PATHS.has(path)) return;
    try {
      const state = await limits.chargeRequest(identityOf(request.ip, request.headers), () => vouch(request.headers));
      if (state) reply.headers(rateLimitHeaders(state));
    } catch (error) {
      if (!(error instanceof ApiError)) {
        // The counters failing must not take the API down: log, and let the request through.
        request.log.warn({ err: error }, 'rate limit counters unavailable');
        return;
      }
      reply.code(error.status).headers(error.headers);
      if (isGraphQL(request)) {
        const { http: _http, ...extensions } = error.extensions;
        return reply.type('application/json').send({ errors: [{ message: error.message, extensions }] });
      }
      return reply.type('application/problem+json').send(toProblem(error, path));
    }
  });
  // Counted before the 401 leaves (onSend, not onResponse): a client that sends its next attempt
  // as soon as it reads the answer finds the failure already counted, on a server database too.
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode !== 401) return payload;
    const { apiKey, sessionToken } = identityOf(request.ip, request.headers);
    await limits.recordAuthFailure(request.ip, apiKey ?? sessionToken).catch((error: unknown) => {
      request.log.warn({ err: error }, 'could not count a failed authentication');
    });
    return payload;
  });
}

/** True for the GraphQL endpoint, whose clients read `errors`, not problem details. */
function isGraphQL(request: FastifyRequest): boolean {
  return request.url === '/graphql' || request.url.startsWith('/graphql?');
}
