import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger as Logger } from 'fastify';
import type { Principal } from '../auth/context.js';
import { ApiError } from '../errors.js';
import type { Config } from '../config.js';

/** Per-request state every resolver receives: a forked EntityManager and the authenticated principal. */
export interface GraphQLContext {
  /** Correlates log lines of one request. */
  requestId: string;
  /** An EntityManager forked for this request alone. */
  em: EntityManager;
  /** The tenant and key the request acts for; null only while authentication is still pending. */
  principal: Principal | null;
  config: Config;
  logger: Logger;
}

/** The principal of an authenticated request; every operation requires one. */
export function requirePrincipal(context: GraphQLContext): Principal {
  if (!context.principal) throw new ApiError('unauthenticated', 'A valid x-api-key is required.');
  return context.principal;
}
