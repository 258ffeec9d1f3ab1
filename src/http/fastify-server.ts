import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { fastifyApolloDrainPlugin, fastifyApolloHandler } from '@as-integrations/fastify';
import cors from '@fastify/cors';
import { raw, type MikroORM } from '@mikro-orm/postgresql';
import { SessionSchema } from '../../entities/session.entity.js';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { GraphQLError, GraphQLSchema } from 'graphql';
import { parseAndValidate } from '../graphql/document-cache.js';
import { CloseCode } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import type { Logger } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import { authenticate, type Principal, type TenantPrincipal } from '../auth/context.js';
import type { Config } from '../shared/config.js';
import { checkDatabaseReady } from '../db/readiness.js';
import { requestSignals } from '../engines/pool/executor.js';
import { ApiError, fromDatabaseError } from '../shared/errors.js';
import type { GraphQLContext } from '../graphql/resolver-context.js';
import { isVariableCoercionMessage } from '../graphql/execute.js';
import { assertAcceptableInputs } from '../graphql/input-limits.js';
import { assertWithinLimits, type OperationLimits } from '../graphql/limits.js';
import { assertIntrospectionAllowed } from '../graphql/introspection.js';
import { isUuid } from '../shared/input-rules.js';
import { registerRestFacade } from '../rest/facade.js';
import { buildOpenApiDocument } from '../rest/openapi.js';
import { clientAddressOf, trustProxyFn } from './client-address.js';
import { registerExplorer } from './explorer.js';
import { REST_ROUTES } from '../rest/routes/index.js';
import { problemClientErrorHandler, problemErrorHandler, problemNotFoundHandler } from './error-handlers.js';
import { registerRateLimits, WS_CLOSE_RATE_LIMITED } from './rate-limit-hooks.js';
import { contextFactory, operationContext } from './request-context.js';
import { registerHostedPage } from './hosted-page.js';
import { registerConsolePage } from './console-page.js';
import { registerEvidenceRoute } from './evidence.js';
import { registerConsoleExports } from './console-exports.js';
import { registerConsoleInvitations } from './console-invitations.js';
import { consoleTokenFrom, CSRF_HEADER, operatorFromCookie, registerConsoleAuth } from './console-auth.js';
import { operatorForToken } from '../operators/operator.service.js';
import type { Services } from '../services.js';
import { deliverDirectly, sharedSubscribe } from '../graphql/shared-subscribe.js';
import { metricsApolloPlugin, recordRequests, registerMetricsRoute } from './metrics-endpoint.js';
import { traceRequests, tracingApolloPlugin } from './request-spans.js';

/**
 * WebSocket close code for a tenant already holding WS_MAX_SOCKETS_PER_TENANT sockets on this
 * server. graphql-ws's `CloseCode` has no code for this (a missing or refused credential closes
 * with its `Unauthorized` 4401 and `Forbidden` 4403), so the code is ours.
 */
export const WS_CLOSE_TOO_MANY_SOCKETS = 4430;
/** Longest path parameter the router passes to a route, in characters. */
const PATH_PARAM_MAX_LENGTH = 1_000;
/** Longest accepted `x-request-id`, in characters. */
const REQUEST_ID_MAX_LENGTH = 128;

/** What the HTTP server needs. */
export interface HttpServerDeps {
  config: Config;
  logger: Logger;
  orm: MikroORM;
  schema: GraphQLSchema;
  services: Services;
}

/** The HTTP server with its GraphQL (HTTP and WebSocket) and REST surfaces. */
export interface HttpServer {
  app: FastifyInstance;
  /** Stops accepting work, drains HTTP requests and sockets. */
  close(): Promise<void>;
}

/** Most sockets one session link (the hosted flow on a phone and a computer) may hold open at once. */
const WS_MAX_SOCKETS_PER_SESSION_TOKEN = 4;
/** graphql-ws `connection_init` member naming the session an `x-session-token` is for (the token is an HMAC of that id). */
export const WS_SESSION_ID_PARAM = 'x-session-id';

/**
 * Connection state kept per graphql-ws socket: its key, session token or console sign-in (the
 * cookie of the upgrade request), and the tenant (or link) whose socket count it holds.
 */
type SocketExtra = {
  apiKey?: string;
  sessionToken?: string;
  consoleCookie?: boolean;
  countedTenantId?: string;
  /** The client address, read once from the upgrade request (it cannot change over a socket's life). */
  address?: string;
  /** The upgrade request's headers: all a socket's later checks read of that request. */
  headers?: IncomingHttpHeaders;
} & Record<PropertyKey, unknown>;

/** Builds fastify with `/graphql` (Apollo + graphql-ws), the `/v1` REST facade, OpenAPI and health routes. */
export async function buildHttpServer(deps: HttpServerDeps): Promise<HttpServer> {
  const { config, logger, orm, schema, services } = deps;
  const limits: OperationLimits = {
    maxDepth: config.GRAPHQL_MAX_DEPTH,
    maxAliases: config.GRAPHQL_MAX_ALIASES,
    maxCost: config.GRAPHQL_MAX_COST,
  };
  const trust = trustProxyFn(config.TRUSTED_PROXIES, config.TRUST_PROXY);
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: config.BODY_LIMIT_BYTES,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    // Path parameters up to this length reach the routes' own validation (ids: 400 naming the field).
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: PATH_PARAM_MAX_LENGTH },
    // What the router refuses itself (a longer parameter, a malformed URL) is problem details too.
    frameworkErrors: (error, request, reply) => {
      const detail =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? `A path parameter is longer than ${PATH_PARAM_MAX_LENGTH} characters.`
          : 'The URL is malformed.';
      problemErrorHandler(new ApiError('validation_failed', detail), request, reply);
    },
    clientErrorHandler: problemClientErrorHandler,
    // Behind trusted proxies the client address comes from X-Forwarded-For (client-address.ts); per-address limits need it.
    trustProxy: trust,
  });
  app.addHook('onRequest', async (request, reply) => {
    // An incoming id longer than this is not an id we echo into logs.
    if (request.id.length > REQUEST_ID_MAX_LENGTH) request.id = randomUUID();
    reply.header('x-request-id', request.id);
  });
  recordRequests(app, services.metrics);
  traceRequests(app);
  // Engine work started by this request is abandoned when the client goes away before the answer
  // (src/engines/pool/executor.ts); `run` keeps the signal in the request's async context. A
  // pre-handler hook, since body parsing runs in the socket's async context and would lose it.
  app.addHook('preHandler', (_request, reply, done) => {
    const disconnected = new AbortController();
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) disconnected.abort(new Error('The client closed the connection before the answer'));
    });
    requestSignals.run(disconnected.signal, done);
  });
  // CORS only for the configured origins (audit N15), and never for the console's routes.
  const corsOrigin = config.CORS_ORIGINS === '*' ? true : config.CORS_ORIGINS.length > 0 ? config.CORS_ORIGINS : false;
  await app.register(
    cors,
    () =>
      (
        request: { url?: string },
        callback: (error: Error | null, options: { origin: typeof corsOrigin; exposedHeaders: string[] }) => void,
      ) =>
        callback(null, {
          origin: request.url?.startsWith('/console') ? false : corsOrigin,
          exposedHeaders: ['x-request-id', 'retry-after', 'ratelimit', 'ratelimit-policy'],
        }),
  );
  // Bodies are JSON (spec Conventions): anything else is a 415, not a string to validate.
  app.removeContentTypeParser('text/plain');
  // JSON must be UTF-8 (RFC 8259 §8.1): bytes that are not would be stored as U+FFFD (audit N14); refuse them instead.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    if (!isUtf8(body as Buffer)) return done(new ApiError('malformed_json', 'The body is not valid JSON: it is not UTF-8.'), undefined);
    parseJson(request, (body as Buffer).toString('utf8'), done);
  });
  // A compressed body would be read as garbage JSON (or inflate without bound): refuse it plainly.
  app.addHook('preParsing', async (request) => {
    const encoding = request.headers['content-encoding'];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity')
      throw new ApiError(
        'unsupported_media_type',
        `Content-Encoding ${encoding} is not supported: send the body uncompressed, with Content-Type: application/json.`,
      );
  });
  /** A valid API key or console sign-in passes an address blocked for others' failures (rate-limits.ts). */
  const vouch = async (headers: Record<string, string | string[] | undefined>) => {
    const key = headers['x-api-key'];
    if (typeof key === 'string' && key.length > 0)
      return (await authenticate(orm.em.fork(), key, services.apiKeys).catch(() => null)) !== null;
    const token = consoleTokenFrom(headers);
    return token ? (await operatorForToken(orm.em.fork(), token).catch(() => null)) !== null : false;
  };
  registerRateLimits(app, services.rateLimits, vouch);
  app.setErrorHandler(problemErrorHandler);
  app.setNotFoundHandler(problemNotFoundHandler);

  const createContext = contextFactory(orm, config, logger, services);

  // --- GraphQL over HTTP
  const limitsPlugin: ApolloServerPlugin<GraphQLContext> = {
    async requestDidStart() {
      return {
        async didResolveOperation({ document, operationName, request, contextValue }) {
          assertIntrospectionAllowed(document, contextValue.principal);
          assertWithinLimits(schema, document, operationName, request.variables, limits);
          assertAcceptableInputs(schema, document, request.variables);
        },
        async willSendResponse({ response }) {
          // Apollo answers some input errors (variable coercion) with 500; they are the client's, so 400.
          if (response.body.kind !== 'single') return;
          const { errors, data } = response.body.singleResult;
          if (data === undefined && errors?.length && errors.every((error) => error.extensions?.code === 'VALIDATION_FAILED')) {
            response.http.status = 400;
          }
          // A refused operation that did nothing is a 429, as on REST (a rate limit, an engine or SMS quota).
          if (data == null && errors?.length && errors.every((error) => error.extensions?.code === 'RATE_LIMITED')) {
            response.http.status = 429;
          }
        },
      };
    },
  };
  const apollo = new ApolloServer<GraphQLContext>({
    schema,
    introspection: true,
    includeStacktraceInErrorResponses: false,
    // Apollo's landing page loads Sandbox from Apollo's CDN; registerExplorer serves GraphiQL instead.
    plugins: [
      fastifyApolloDrainPlugin(app),
      limitsPlugin,
      metricsApolloPlugin(services.metrics),
      tracingApolloPlugin(),
      ApolloServerPluginLandingPageDisabled(),
    ],
    formatError(formatted, error) {
      const code = formatted.extensions?.code;
      // Variable coercion failures (wrong type, unknown enum value) are the client's input.
      const isCoercionError = isVariableCoercionMessage(formatted.message) && !formatted.path;
      if (code === 'BAD_USER_INPUT' || isCoercionError)
        return { ...formatted, extensions: { ...formatted.extensions, code: 'VALIDATION_FAILED' } };
      if (code === 'INTERNAL_SERVER_ERROR') {
        // Lock and statement timeouts, deadlocks: the same answers REST gives, not an internal error.
        const fromDatabase = fromDatabaseError(error);
        if (fromDatabase)
          return { message: fromDatabase.message, path: formatted.path, extensions: { code: fromDatabase.code.toUpperCase() } };
        logger.error({ err: error }, 'graphql resolver failed');
        return { message: 'Internal error.', path: formatted.path, extensions: { code: 'INTERNAL_ERROR' } };
      }
      return formatted;
    },
  });
  await apollo.start();
  app.route({
    url: '/graphql',
    method: ['GET', 'POST', 'OPTIONS'],
    handler: fastifyApolloHandler(apollo, {
      context: async (request) => {
        const context = await createContext(request, { consoleCookie: true });
        if (!context.principal)
          throw new ApiError(
            'unauthenticated',
            'A valid x-api-key header (or, for end-user steps, x-session-token; in the console, its sign-in) is required.',
          );
        return context;
      },
    }),
  });

  registerExplorer(app);

  /** Charges a new socket to its address and credential; closes it with 4429 when a limit is spent. */
  const chargeSocket = async (
    socket: { close(code: number, reason: string): void },
    address: string,
    key: unknown,
    token: unknown,
    headers: Record<string, string | string[] | undefined>,
  ) => {
    try {
      const apiKey = typeof key === 'string' && key.length > 0 ? key : undefined;
      await services.rateLimits.chargeRequest(
        { address, apiKey, sessionToken: typeof token === 'string' && token.length > 0 ? token : undefined },
        () => vouch(apiKey ? { 'x-api-key': apiKey } : headers),
      );
      return true;
    } catch (error) {
      if (!(error instanceof ApiError)) {
        logger.warn({ err: error }, 'rate limit counters unavailable');
        return true;
      }
      socket.close(WS_CLOSE_RATE_LIMITED, `Too many requests: ${error.message}`.slice(0, 120));
      return false;
    }
  };

  // --- GraphQL over WebSocket (graphql-ws), same port and path
  const wss = new WebSocketServer({ server: app.server, path: '/graphql' });
  services.metrics.socketCount = () => wss.clients.size;
  // Open sockets per tenant on this server, so one tenant cannot hold every connection (audit M11).
  const socketsPerTenant = new Map<string, number>();
  // Open sockets per client address until an API key signs them in (audit N5): counted from the
  // upgrade, before connection_init, so sockets that never send one count too. Registered before
  // graphql-ws's own listener, so a socket over the cap is closed before it is served.
  const socketsPerAddress = new Map<string, number>();
  // The address each socket still counts for; one shared release function, not a closure per socket
  // (issue 29: memory per idle subscription).
  const countedAddress = new WeakMap<WebSocket, string>();
  /** Stops counting `socket` for its address (once: on sign-in with a key, or on close). */
  const releaseAddress = (socket: WebSocket): void => {
    const address = countedAddress.get(socket);
    if (address === undefined) return;
    countedAddress.delete(socket);
    const left = (socketsPerAddress.get(address) ?? 1) - 1;
    if (left > 0) socketsPerAddress.set(address, left);
    else socketsPerAddress.delete(address);
  };
  /** The 'close' listener every socket shares (`this` is the socket). */
  function releaseOnClose(this: WebSocket): void {
    releaseAddress(this);
  }
  wss.on('connection', (socket, request) => {
    const address = clientAddressOf(request, trust);
    const open = socketsPerAddress.get(address) ?? 0;
    if (open >= config.WS_MAX_SOCKETS_PER_ADDRESS) {
      socket.close(WS_CLOSE_TOO_MANY_SOCKETS, `Too many connections: at most ${config.WS_MAX_SOCKETS_PER_ADDRESS} per client address`);
      return;
    }
    socketsPerAddress.set(address, open + 1);
    countedAddress.set(socket, address);
    // 'close' is emitted once per socket.
    socket.on('close', releaseOnClose);
  });
  /** Whether a session token is the link of a session that exists and has not expired: an HMAC check, then one read. */
  const sessionLinkIsValid = async (sessionId: unknown, token: string): Promise<boolean> => {
    if (typeof sessionId !== 'string' || !isUuid(sessionId) || !services.secrets.verifySessionLinkToken(sessionId, token)) return false;
    // Expiry by the database's clock, as every other expiry check reads it.
    return (await orm.em.fork().count(SessionSchema, { id: sessionId, expiresAt: { $gt: raw('now()') } })) > 0;
  };
  const wsServer = useServer<Record<string, unknown>, SocketExtra>(
    {
      schema,
      subscribe: sharedSubscribe,
      onConnect: async (ctx) => {
        const key = ctx.connectionParams?.['x-api-key'];
        const sessionToken = ctx.connectionParams?.['x-session-token'];
        const address = clientAddressOf(ctx.extra.request, trust);
        const headers = ctx.extra.request.headers;
        ctx.extra.address = address;
        ctx.extra.headers = headers;
        // Keep the address and headers, not the upgrade request with its raw headers and stream state:
        // graphql-ws holds `extra` for the socket's whole life (issue 29: memory per idle subscription).
        // Cleared, not deleted: a deleted property turns the object into a slower, larger dictionary.
        (ctx.extra as { request: unknown }).request = undefined;
        if (!(await chargeSocket(ctx.extra.socket, address, key, sessionToken, headers))) return false;
        if ((typeof key !== 'string' || key.length === 0) && typeof sessionToken === 'string' && sessionToken.length > 0) {
          // The hosted flow's page: its token names one session, checked by each operation. Its
          // sockets are counted per token, so one link cannot hold every connection either.
          // A made-up token is refused here, not left open until its first operation (audit N5).
          if (sessionToken.length > 200 || !(await sessionLinkIsValid(ctx.connectionParams?.[WS_SESSION_ID_PARAM], sessionToken))) {
            await services.rateLimits.recordAuthFailure(address, undefined).catch(() => undefined);
            ctx.extra.socket.close(
              CloseCode.Forbidden,
              `Forbidden: x-session-token is not the link of an open session named by ${WS_SESSION_ID_PARAM}`,
            );
            return false;
          }
          const counted = `end-user:${sessionToken}`;
          const open = socketsPerTenant.get(counted) ?? 0;
          if (open >= WS_MAX_SOCKETS_PER_SESSION_TOKEN) {
            ctx.extra.socket.close(
              WS_CLOSE_TOO_MANY_SOCKETS,
              `Too many connections: at most ${WS_MAX_SOCKETS_PER_SESSION_TOKEN} per session link`,
            );
            return false;
          }
          socketsPerTenant.set(counted, open + 1);
          ctx.extra.countedTenantId = counted;
          ctx.extra.sessionToken = sessionToken;
          return true;
        }
        let principal: TenantPrincipal | null;
        if (typeof key === 'string' && key.length > 0) {
          principal = await authenticate(orm.em.fork(), key, services.apiKeys);
          ctx.extra.apiKey = key;
        } else if (consoleTokenFrom(headers)) {
          // The console: its sign-in cookie came with the upgrade request, its CSRF token in connection_init.
          principal = await operatorFromCookie(orm.em.fork(), headers, ctx.connectionParams?.[CSRF_HEADER]).catch(() => null);
          ctx.extra.consoleCookie = true;
        } else {
          ctx.extra.socket.close(CloseCode.Unauthorized, 'Unauthorized: x-api-key (or x-session-token) missing from connection_init');
          return false;
        }
        if (!principal) {
          await services.rateLimits
            .recordAuthFailure(address, typeof key === 'string' && key.length > 0 ? key : undefined)
            .catch(() => undefined);
          ctx.extra.socket.close(
            CloseCode.Forbidden,
            'Forbidden: unknown or revoked x-api-key, or a console sign-in without its CSRF token',
          );
          return false;
        }
        const open = socketsPerTenant.get(principal.tenantId) ?? 0;
        if (open >= config.WS_MAX_SOCKETS_PER_TENANT) {
          ctx.extra.socket.close(WS_CLOSE_TOO_MANY_SOCKETS, `Too many connections: at most ${config.WS_MAX_SOCKETS_PER_TENANT} per tenant`);
          return false;
        }
        socketsPerTenant.set(principal.tenantId, open + 1);
        ctx.extra.countedTenantId = principal.tenantId;
        // A machine's socket counts for its tenant from here on, not for its address.
        if (principal.kind === 'api_key') releaseAddress(ctx.extra.socket);
        // A key's use over a socket counts as over HTTP: noted in memory, written in the next flush.
        if (principal.kind === 'api_key') services.keyUsage.touch(principal.apiKeyId, address);
        return true;
      },
      onClose: (ctx) => {
        const tenantId = ctx.extra.countedTenantId;
        if (!tenantId) return;
        ctx.extra.countedTenantId = undefined;
        const open = (socketsPerTenant.get(tenantId) ?? 1) - 1;
        if (open > 0) socketsPerTenant.set(tenantId, open);
        else socketsPerTenant.delete(tenantId);
      },
      onSubscribe: async (ctx, _id, payload) => {
        // graphql-ws lists the new operation in ctx.subscriptions before this hook and removes each when it ends.
        if (Object.keys(ctx.subscriptions).length > config.WS_MAX_SUBSCRIPTIONS_PER_SOCKET) {
          return [
            new ApiError(
              'too_many_subscriptions',
              `Too many operations on this connection: at most ${config.WS_MAX_SUBSCRIPTIONS_PER_SOCKET} at once.`,
            ),
          ];
        }
        // Each operation is a request for the key's and the address's rate limits.
        try {
          await services.rateLimits.chargeRequest({
            address: ctx.extra.address!,
            apiKey: ctx.extra.apiKey,
            sessionToken: ctx.extra.sessionToken,
          });
        } catch (error) {
          if (error instanceof ApiError) return [error];
          logger.warn({ err: error }, 'rate limit counters unavailable');
        }
        // Parse, validate and check limits here so every failure reaches the client as an error message.
        let checked;
        try {
          checked = parseAndValidate(schema, payload.query);
        } catch (error) {
          return [error as GraphQLError];
        }
        if (checked.errors) return [...checked.errors];
        const { document } = checked;
        const variableValues = payload.variables ?? undefined;
        try {
          assertWithinLimits(schema, document, payload.operationName, variableValues, limits);
          assertAcceptableInputs(schema, document, variableValues);
        } catch (error) {
          return [error as GraphQLError];
        }
        // Forked for the checks below only: the operation's own (lazy) fork is made if it reads the
        // database, so an idle subscription keeps none.
        const em = orm.em.fork();
        // Re-check the key per operation so a revoked key stops working on open sockets too.
        // Re-check the console sign-in too: signing out, or switching environment, applies to open sockets.
        let principal: Principal | null;
        if (ctx.extra.sessionToken) principal = { kind: 'end_user', token: ctx.extra.sessionToken };
        else if (ctx.extra.consoleCookie)
          principal = await operatorFromCookie(em, ctx.extra.headers!, ctx.connectionParams?.[CSRF_HEADER]).catch(() => null);
        else principal = await authenticate(em, ctx.extra.apiKey!, services.apiKeys);
        if (!principal) return [new ApiError('unauthenticated', 'The credentials of this connection are no longer valid.')];
        try {
          assertIntrospectionAllowed(document, principal);
        } catch (error) {
          return [error as GraphQLError];
        }
        // Each operation on a long-lived socket is a use of its key, so "last used" stays current.
        if (principal.kind === 'api_key') services.keyUsage.touch(principal.apiKeyId, ctx.extra.address!);
        const contextValue = operationContext({ config, logger, services }, () => orm.em.fork(), principal, {
          headers: ctx.extra.headers!,
        });
        return { schema, document, operationName: payload.operationName, variableValues, contextValue };
      },
      onOperation: (ctx, id, _payload, _args, result) => {
        // A subscription's results go straight to the socket as each change is published: one
        // serialisation per change, one write per subscriber (issue 29: 5,000 subscribers).
        // Not for an operation the client completed already: graphql-ws ends it next.
        if (id in ctx.subscriptions) deliverDirectly(result, ctx.extra.socket, id);
      },
    },
    wss,
  );

  // --- REST facade and its OpenAPI document
  registerRestFacade(app, schema, REST_ROUTES, createContext);
  const openApi = buildOpenApiDocument(REST_ROUTES, config);
  app.get('/v1/openapi.json', async () => openApi);

  // --- The hosted verification flow a session URL opens
  registerHostedPage(app, orm, services);

  // --- The console: its page and its sign-in (operators; everything else it does is GraphQL)
  registerConsolePage(app);
  registerConsoleAuth(app, orm, config, services.secrets);
  registerEvidenceRoute(app, orm, services);
  registerConsoleExports(app, orm, services);
  registerConsoleInvitations(app, orm);

  // --- Public keys that verify service tokens offline
  app.get('/.well-known/jwks.json', async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return services.tokens.publicKeys();
  });

  // --- Operations
  registerMetricsRoute(app, services.metrics, config);
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    try {
      await checkDatabaseReady(orm);
      return { status: 'ready' };
    } catch (error) {
      logger.warn({ err: error }, 'readiness check failed');
      return reply
        .code(503)
        .type('application/problem+json')
        .send({
          type: 'https://errors.openkyc.dev/service_unavailable',
          title: 'Service unavailable',
          status: 503,
          detail: `The database is not ready: ${error instanceof Error ? error.message : 'it did not answer'}.`,
          code: 'service_unavailable',
        });
    }
  });

  return {
    app,
    async close() {
      await wsServer.dispose();
      wss.close();
      await app.close();
    },
  };
}
