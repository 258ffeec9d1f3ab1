import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger as Logger } from 'fastify';
import type { TenantPrincipal, Principal } from '../auth/context.js';
import type { Config } from '../config.js';
import { ApiError } from '../errors.js';
import type { Services } from '../services.js';
import type { Loaders } from './loaders.js';

/** Per-request state every resolver receives: a forked EntityManager and the authenticated principal. */
export interface GraphQLContext {
  /** Correlates log lines of one request. */
  requestId: string;
  /** An EntityManager forked for this request alone. */
  em: EntityManager;
  /** The API key or end-user token the request acts for; null when it carried neither. */
  principal: Principal | null;
  config: Config;
  logger: Logger;
  services: Services;
  /** DataLoaders created for this request alone. */
  loaders: Loaders;
  /** Base URL the client reached us at (`PUBLIC_URL` wins when set), for session links. */
  baseUrl: string;
}

/**
 * The tenant principal of a request made with an API key or by a signed-in operator; end-user
 * tokens cannot call tenant operations. What an operator's role allows is checked once for every
 * operation (src/graphql/operator-roles.ts), not here.
 */
export function requireTenant(context: GraphQLContext): TenantPrincipal {
  if (!context.principal) throw new ApiError('unauthenticated', 'A valid x-api-key is required.');
  if (context.principal.kind === 'end_user')
    throw new ApiError('forbidden', 'This operation needs an API key; a session token only reaches its own verification steps.');
  return context.principal;
}
