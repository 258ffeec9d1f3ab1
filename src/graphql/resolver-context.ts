import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger as Logger } from 'fastify';
import { requireTenantPrincipal } from '../auth/authorization.js';
import type { TenantPrincipal, Principal } from '../auth/context.js';
import type { Config } from '../shared/config.js';
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
 * The tenant principal of a request made with an API key or by a signed-in operator, narrowed for
 * the resolver; who may call what is decided once for every root field (src/auth/authorization.ts).
 */
export function requireTenant(context: GraphQLContext): TenantPrincipal {
  return requireTenantPrincipal(context.principal);
}
