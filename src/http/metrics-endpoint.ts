/**
 * `GET /metrics` (Prometheus text) and the request instruments behind it. The endpoint is closed
 * unless the operator opens it: with METRICS_TOKEN on the API port (bearer token, compared in
 * constant time), or with METRICS_PORT on a listener of its own that serves nothing else.
 *
 * Labels are bounded by what the server defines, never by what a client sends: the route
 * pattern (not the URL), the first root field of a GraphQL operation (not its client-chosen
 * name), the status code.
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { ApolloServerPlugin } from '@apollo/server';
import type { FastifyInstance } from 'fastify';
import { Kind, type OperationDefinitionNode } from 'graphql';
import type { Config } from '../shared/config.js';
import { ApiError } from '../shared/errors.js';
import type { AppMetrics } from '../metrics/metrics.js';

/** Methods labelled as themselves; any other (a client can send anything) is `other`. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Whether `header` carries `Bearer <token>` (constant time over the token's length). */
function bearerMatches(header: string | undefined, token: string): boolean {
  const presented = Buffer.from(header?.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : '');
  const expected = Buffer.from(token);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

/** Records every answered request: method, route pattern, status and duration. */
export function recordRequests(app: FastifyInstance, metrics: AppMetrics): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    if (route === '/metrics') return;
    const method = KNOWN_METHODS.has(request.method) ? request.method : 'other';
    metrics.httpRequests.inc({ method, route, status: String(reply.statusCode) });
    metrics.httpDuration.observe({ method, route }, reply.elapsedTime / 1000);
  });
}

/**
 * Serves `GET /metrics` on the API port when METRICS_TOKEN is set; without it the path is an
 * ordinary 404. Registered after the problem-details error handler, so a refusal is one too.
 */
export function registerMetricsRoute(app: FastifyInstance, metrics: AppMetrics, config: Config): void {
  const token = config.METRICS_TOKEN;
  if (!token) return;
  app.get('/metrics', async (request, reply) => {
    if (!bearerMatches(request.headers.authorization, token)) {
      reply.header('www-authenticate', 'Bearer realm="metrics"');
      throw new ApiError('unauthenticated', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.');
    }
    reply.header('content-type', metrics.contentType);
    return metrics.expose();
  });
}

/** The label of an operation: its first root field (schema-defined), or `unknown` before it is parsed. */
export function operationLabel(operation: OperationDefinitionNode | undefined | null): string {
  const field = operation?.selectionSet.selections.find((selection) => selection.kind === Kind.FIELD);
  return field?.kind === Kind.FIELD ? field.name.value : 'unknown';
}

/** Apollo plugin counting and timing the GraphQL operations of `/graphql` (REST routes are counted by route). */
export function metricsApolloPlugin<Context extends object>(metrics: AppMetrics): ApolloServerPlugin<Context> {
  return {
    async requestDidStart() {
      const startedAt = performance.now();
      return {
        async willSendResponse({ operation, response }) {
          const labels = { operation: operationLabel(operation), type: operation?.operation ?? 'unknown' };
          const failed = response.body.kind === 'single' && (response.body.singleResult.errors?.length ?? 0) > 0;
          metrics.graphqlOperations.inc({ ...labels, outcome: failed ? 'error' : 'ok' });
          metrics.graphqlDuration.observe(labels, (performance.now() - startedAt) / 1000);
        },
      };
    },
  };
}

/** A running metrics listener (METRICS_PORT). */
export interface MetricsListener {
  /** Where it listens, e.g. `http://127.0.0.1:9464`. */
  url: string;
  close(): Promise<void>;
}

/** Serves `GET /metrics` alone on `host:port`, for a scraper on a private interface (no token). */
export async function serveMetrics(metrics: AppMetrics, host: string, port: number): Promise<MetricsListener> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Only GET /metrics is served here.\n');
      return;
    }
    metrics.expose().then(
      (body) => response.writeHead(200, { 'content-type': metrics.contentType }).end(body),
      () => response.writeHead(503, { 'content-type': 'text/plain' }).end('Metrics could not be collected.\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${boundPort}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
