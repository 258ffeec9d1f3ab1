import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger as Logger } from 'fastify';
import { authenticate } from '../auth/context.js';
import type { Config } from '../config.js';
import type { GraphQLContext } from '../graphql/context.js';

/** Builds the per-request GraphQL context from an HTTP request. */
export type RequestContextFactory = (request: { id?: string; headers: IncomingHttpHeaders; log?: Logger }) => Promise<GraphQLContext>;

/** Reads the API key header (a repeated header is not a key). */
export function apiKeyFrom(headers: IncomingHttpHeaders): string | undefined {
  const value = headers['x-api-key'];
  return typeof value === 'string' ? value : undefined;
}

/** Returns a factory that forks an EntityManager and authenticates the request's key. */
export function contextFactory(orm: MikroORM, config: Config, logger: Logger): RequestContextFactory {
  return async (request) => {
    const em = orm.em.fork();
    const principal = await authenticate(em, apiKeyFrom(request.headers));
    return { requestId: request.id ?? randomUUID(), em, principal, config, logger: request.log ?? logger };
  };
}
