import { randomUUID } from 'node:crypto';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { fastifyApolloDrainPlugin, fastifyApolloHandler } from '@as-integrations/fastify';
import cors from '@fastify/cors';
import type { MikroORM } from '@mikro-orm/postgresql';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { parse, validate, type GraphQLError, type GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type { Logger } from 'pino';
import { WebSocketServer } from 'ws';
import { authenticate } from '../auth/context.js';
import type { Config } from '../config.js';
import { ApiError } from '../errors.js';
import type { GraphQLContext } from '../graphql/context.js';
import { assertWithinLimits, type OperationLimits } from '../graphql/limits.js';
import { registerRestFacade } from '../rest/facade.js';
import { buildOpenApiDocument } from '../rest/openapi.js';
import { REST_ROUTES } from '../rest/routes/index.js';
import { problemErrorHandler, problemNotFoundHandler } from './errors.js';
import { contextFactory } from './request-context.js';
import { registerVerifyPage } from './verify-page.js';
import { createLoaders } from '../graphql/loaders.js';
import type { Services } from '../services.js';
import { sharedSubscribe } from '../graphql/shared-subscribe.js';

/** WebSocket close code for a connection without an API key. */
export const WS_CLOSE_UNAUTHORIZED = 4401;
/** WebSocket close code for an unknown or revoked API key. */
export const WS_CLOSE_FORBIDDEN = 4403;
/** Longest time `/readyz` waits for the database, in milliseconds. */
const READINESS_TIMEOUT_MS = 2000;
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

/** Connection state kept per graphql-ws socket. */
type SocketExtra = { apiKey?: string } & Record<PropertyKey, unknown>;

/** Builds fastify with `/graphql` (Apollo + graphql-ws), the `/v1` REST facade, OpenAPI and health routes. */
export async function buildHttpServer(deps: HttpServerDeps): Promise<HttpServer> {
  const { config, logger, orm, schema, services } = deps;
  const limits: OperationLimits = {
    maxDepth: config.GRAPHQL_MAX_DEPTH,
    maxAliases: config.GRAPHQL_MAX_ALIASES,
    maxCost: config.GRAPHQL_MAX_COST,
  };
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: config.BODY_LIMIT_BYTES,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    routerOptions: { ignoreTrailingSlash: true },
  });
  app.addHook('onRequest', async (request, reply) => {
    // An incoming id longer than this is not an id we echo into logs.
    if (request.id.length > REQUEST_ID_MAX_LENGTH) request.id = randomUUID();
    reply.header('x-request-id', request.id);
  });
  await app.register(cors, { origin: true, exposedHeaders: ['x-request-id', 'retry-after', 'ratelimit', 'ratelimit-policy'] });
  // Bodies are JSON (spec Conventions): anything else is a 415, not a string to validate.
  app.removeContentTypeParser('text/plain');
  app.setErrorHandler(problemErrorHandler);
  app.setNotFoundHandler(problemNotFoundHandler);

  const createContext = contextFactory(orm, config, logger, services);

  // --- GraphQL over HTTP
  const limitsPlugin: ApolloServerPlugin<GraphQLContext> = {
    async requestDidStart() {
      return {
        async didResolveOperation({ document, operationName, request }) {
          assertWithinLimits(schema, document, operationName, request.variables, limits);
        },
        async willSendResponse({ response }) {
          // Apollo answers some input errors (variable coercion) with 500; they are the client's, so 400.
          if (response.body.kind !== 'single') return;
          const { errors, data } = response.body.singleResult;
          if (data === undefined && errors?.length && errors.every((error) => error.extensions?.code === 'VALIDATION_FAILED')) {
            response.http.status = 400;
          }
        },
      };
    },
  };
  const apollo = new ApolloServer<GraphQLContext>({
    schema,
    introspection: true,
    includeStacktraceInErrorResponses: false,
    plugins: [fastifyApolloDrainPlugin(app), limitsPlugin],
    formatError(formatted, error) {
      const code = formatted.extensions?.code;
      // Variable coercion failures (wrong type, unknown enum value) are the client's input.
      const isCoercionError = typeof formatted.message === 'string' && /^Variable "\$/.test(formatted.message) && !formatted.path;
      if (code === 'BAD_USER_INPUT' || isCoercionError)
        return { ...formatted, extensions: { ...formatted.extensions, code: 'VALIDATION_FAILED' } };
      if (code === 'INTERNAL_SERVER_ERROR') {
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
        const context = await createContext(request);
        if (!context.principal)
          throw new ApiError('unauthenticated', 'A valid x-api-key header (or, for end-user steps, x-session-token) is required.');
        return context;
      },
    }),
  });

  // --- GraphQL over WebSocket (graphql-ws), same port and path
  const wss = new WebSocketServer({ server: app.server, path: '/graphql' });
  const wsServer = useServer<Record<string, unknown>, SocketExtra>(
    {
      schema,
      subscribe: sharedSubscribe,
      onConnect: async (ctx) => {
        const key = ctx.connectionParams?.['x-api-key'];
        if (typeof key !== 'string' || key.length === 0) {
          ctx.extra.socket.close(WS_CLOSE_UNAUTHORIZED, 'Unauthorized: x-api-key missing from connection_init');
          return false;
        }
        const principal = await authenticate(orm.em.fork(), key, services.apiKeys);
        if (!principal) {
          ctx.extra.socket.close(WS_CLOSE_FORBIDDEN, 'Forbidden: unknown or revoked x-api-key');
          return false;
        }
        ctx.extra.apiKey = key;
        return true;
      },
      onSubscribe: async (ctx, _id, payload) => {
        // Parse, validate and check limits here so every failure reaches the client as an error message.
        let document;
        try {
          document = parse(payload.query);
        } catch (error) {
          return [error as GraphQLError];
        }
        const validationErrors = validate(schema, document);
        if (validationErrors.length > 0) return validationErrors;
        const variableValues = payload.variables ?? undefined;
        try {
          assertWithinLimits(schema, document, payload.operationName, variableValues, limits);
        } catch (error) {
          return [error as GraphQLError];
        }
        const em = orm.em.fork();
        // Re-check the key per operation so a revoked key stops working on open sockets too.
        const principal = await authenticate(em, ctx.extra.apiKey, services.apiKeys);
        if (!principal) return [new ApiError('unauthenticated', 'The API key of this connection is no longer valid.')];
        const host = ctx.extra.request.headers.host ?? `${config.HOST}:${config.PORT}`;
        const contextValue: GraphQLContext = {
          requestId: randomUUID(),
          em,
          principal,
          config,
          logger,
          services,
          loaders: createLoaders(em, services.secrets),
          baseUrl: config.PUBLIC_URL ?? `http://${host}`,
        };
        return { schema, document, operationName: payload.operationName, variableValues, contextValue };
      },
    },
    wss,
  );

  // --- REST facade and its OpenAPI document
  registerRestFacade(app, schema, REST_ROUTES, createContext);
  const openApi = buildOpenApiDocument(REST_ROUTES, config);
  app.get('/v1/openapi.json', async () => openApi);

  // --- The page a session URL opens
  registerVerifyPage(app, orm, services);

  // --- Public keys that verify service tokens offline
  app.get('/.well-known/jwks.json', async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return services.tokens.publicKeys();
  });

  // --- Operations
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    try {
      await Promise.race([
        orm.em.fork().getConnection().execute('select 1'),
        new Promise((_resolve, reject) => setTimeout(() => reject(new Error('database timeout')), READINESS_TIMEOUT_MS).unref()),
      ]);
      return { status: 'ready' };
    } catch (error) {
      logger.warn({ err: error }, 'readiness check failed');
      return reply.code(503).type('application/problem+json').send({
        type: 'https://errors.openkyc.dev/service_unavailable',
        title: 'Service unavailable',
        status: 503,
        detail: 'The database is not reachable.',
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
