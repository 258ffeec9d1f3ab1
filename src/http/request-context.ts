import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger as Logger } from 'fastify';
import { authenticate, type Principal } from '../auth/context.js';
import type { Config } from '../shared/config.js';
import type { GraphQLContext } from '../graphql/resolver-context.js';
import { createLoaders, type Loaders } from '../graphql/loaders.js';
import type { Services } from '../services.js';
import { operatorFromCookie } from './console-auth.js';

/** Builds the per-request GraphQL context from an HTTP request. */
export type RequestContextFactory = (request: OperationOrigin, options?: PrincipalOptions) => Promise<GraphQLContext>;

/** Which credentials a transport accepts besides API keys and session tokens. */
export interface PrincipalOptions {
  /**
   * Whether the console's sign-in cookie (with its CSRF header) counts: on `/graphql` only, which
   * the console uses; the REST facade stays for machines with keys.
   * @default false
   */
  consoleCookie?: boolean;
}

/** Longest end-user token we accept, in characters. */
const SESSION_TOKEN_MAX_LENGTH = 100;

/** Reads a single-valued header (a repeated header is not a credential). */
function singleHeader(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** Reads the API key header. */
export function apiKeyFrom(headers: IncomingHttpHeaders): string | undefined {
  return singleHeader(headers, 'x-api-key');
}

/** Resolves who a request acts for: an API key, else an end user's session token, else (when accepted) a console sign-in, else nobody. */
export async function resolvePrincipal(
  context: Pick<GraphQLContext, 'em' | 'services'>,
  headers: IncomingHttpHeaders,
  options: PrincipalOptions = {},
): Promise<Principal | null> {
  const apiKey = apiKeyFrom(headers);
  if (apiKey) return authenticate(context.em, apiKey, context.services.apiKeys);
  const sessionToken = singleHeader(headers, 'x-session-token');
  if (sessionToken && sessionToken.length <= SESSION_TOKEN_MAX_LENGTH) return { kind: 'end_user', token: sessionToken };
  if (options.consoleCookie) return operatorFromCookie(context.em, headers);
  return null;
}

/** Where a GraphQL operation came from: what its context takes from the HTTP request or the WebSocket upgrade. */
export interface OperationOrigin {
  /** The request id (Fastify's); a fresh UUID when absent (WebSocket operations). */
  id?: string;
  headers: IncomingHttpHeaders;
  /** The request's logger; the server's when absent. */
  log?: Logger;
  /** `http` when absent. */
  protocol?: string;
  /** The client address (Fastify's `ip`, under TRUSTED_PROXIES), recorded as an API key's last use. */
  ip?: string;
}

/**
 * The GraphQL context of one operation, over `em` and for `principal`: the one construction for
 * HTTP requests (GraphQL and the REST facade) and WebSocket operations. `em` may be a factory, and
 * the loaders are made on first use: a subscription that never reads the database (its fields
 * are functions of the event) then holds neither a fork nor loaders for as long as it stays open
 * (about 7 KB each, issue 29's memory per idle subscription).
 */
export function operationContext(
  app: { config: Config; logger: Logger; services: Services },
  em: EntityManager | (() => EntityManager),
  principal: Principal | null,
  origin: OperationOrigin,
): GraphQLContext {
  const { config } = app;
  const host = singleHeader(origin.headers, 'host') ?? `${config.HOST}:${config.PORT}`;
  return new OperationContext(
    origin.id ?? randomUUID(),
    em,
    principal,
    config,
    origin.log ?? app.logger,
    app.services,
    config.PUBLIC_URL ?? `${origin.protocol ?? 'http'}://${host}`,
  );
}

/**
 * {@link operationContext}'s value: a class, so its lazy `em` and `loaders` are getters on the
 * prototype and its fields stay in one fast shape (an object literal with getters became a
 * dictionary plus three closures: ~0.9 KB of each idle subscription).
 */
class OperationContext implements GraphQLContext {
  private forked: EntityManager | undefined;
  private made: Loaders | undefined;

  constructor(
    readonly requestId: string,
    private readonly emOrFactory: EntityManager | (() => EntityManager),
    readonly principal: Principal | null,
    readonly config: Config,
    readonly logger: Logger,
    readonly services: Services,
    readonly baseUrl: string,
  ) {}

  /** The operation's fork, made on first use when a factory was given. */
  get em(): EntityManager {
    return (this.forked ??= typeof this.emOrFactory === 'function' ? this.emOrFactory() : this.emOrFactory);
  }

  /** The operation's DataLoaders, made on first use. */
  get loaders(): Loaders {
    return (this.made ??= createLoaders(this.em, this.services.secrets));
  }
}

/** Returns a factory that forks an EntityManager, authenticates the request and builds its context. */
export function contextFactory(orm: MikroORM, config: Config, logger: Logger, services: Services): RequestContextFactory {
  return async (request, options) => {
    const em = orm.em.fork();
    const principal = await resolvePrincipal({ em, services }, request.headers, options);
    if (principal?.kind === 'api_key') services.keyUsage.touch(principal.apiKeyId, request.ip ?? null);
    return operationContext({ config, logger, services }, em, principal, request);
  };
}
