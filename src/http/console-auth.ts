import { requireSignedIn } from '../auth/authorization.js';
import type { IncomingHttpHeaders } from 'node:http';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OperatorPrincipal } from '../auth/context.js';
import type { ServiceSecrets } from '../auth/secrets.js';
import type { Config } from '../shared/config.js';
import { ApiError } from '../shared/errors.js';
import {
  signInBrakeOf,
  csrfTokenFor,
  csrfTokenMatches,
  operatorForToken,
  readOperator,
  signIn,
  signOut,
  switchEnvironment,
  OPERATOR_LOGIN_TTL_SECONDS,
  type OperatorSummary,
} from '../operators/operator.service.js';
import { unixSeconds } from '../shared/time.js';

/** Name of the console's session cookie. */
export const CONSOLE_COOKIE = 'openkyc_console';
/** Header in which the console echoes its CSRF token on every cookie-authenticated request. */
export const CSRF_HEADER = 'x-csrf-token';
/** Where the console's sign-in routes live; they answer JSON, errors as problem details. */
export const CONSOLE_API_PREFIX = '/console/api';

/** The value of one cookie of a `Cookie` header (RFC 6265 §5.4: `name=value` pairs separated by `; `). */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const at = pair.indexOf('=');
    if (at < 0 || pair.slice(0, at).trim() !== name) continue;
    return pair.slice(at + 1).trim() || undefined;
  }
  return undefined;
}

/** The console cookie's token of a request, if it carries one. */
export function consoleTokenFrom(headers: IncomingHttpHeaders): string | undefined {
  return readCookie(headers.cookie, CONSOLE_COOKIE);
}

/**
 * The operator a cookie-carrying request acts for. Every such request must echo the sign-in's
 * CSRF token in `x-csrf-token`, reads included (a GraphQL query can be sent as a form post
 * otherwise): a valid cookie without it is a 403, not a silent fall-back to no principal.
 */
export async function operatorFromCookie(
  em: EntityManager,
  headers: IncomingHttpHeaders,
  csrfToken: unknown = headers[CSRF_HEADER],
): Promise<OperatorPrincipal | null> {
  const token = consoleTokenFrom(headers);
  if (!token) return null;
  const principal = await operatorForToken(em, token);
  if (!principal) return null;
  if (!csrfTokenMatches(token, typeof csrfToken === 'string' ? csrfToken : undefined))
    throw new ApiError('forbidden', `A console request must carry its sign-in's CSRF token in the ${CSRF_HEADER} header.`);
  return principal;
}

/** The cookie's attributes: HttpOnly (no script reads it), SameSite=Strict (no other site sends it), Secure over https. */
function cookieHeader(value: string, maxAgeSeconds: number, secure: boolean): string {
  return [
    `${CONSOLE_COOKIE}=${value}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${maxAgeSeconds}`,
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

/** What the console is told about its sign-in. */
function signInView(operator: OperatorSummary, environment: string, csrfToken: string) {
  return {
    operator: {
      id: operator.id,
      tenant_id: operator.tenantId,
      email: operator.email,
      name: operator.name,
      role: operator.role,
      created_at: unixSeconds(operator.createdAt),
      temporary_credential: operator.passwordChangeRequired,
      totp_enabled: operator.totpEnabled,
    },
    environment,
    csrf_token: csrfToken,
  };
}

/**
 * The console's sign-in routes: sign in (sets the cookie and gives the CSRF token), who am I (the
 * CSRF token again, after a reload), switch environment, sign out. Everything else the console
 * does goes through the public GraphQL API with the cookie and the CSRF header.
 */
export function registerConsoleAuth(app: FastifyInstance, orm: MikroORM, config: Config, secrets: ServiceSecrets): void {
  const secure = (request: FastifyRequest) => request.protocol === 'https' || (config.PUBLIC_URL?.startsWith('https:') ?? false);
  const noStore = (reply: FastifyReply) => reply.header('cache-control', 'no-store');

  /** The signed-in operator of a request whose cookie and CSRF header are both right; 401 otherwise. */
  const signedInOperator = async (request: FastifyRequest, em: EntityManager) =>
    requireSignedIn(await operatorFromCookie(em, request.headers));

  app.post(`${CONSOLE_API_PREFIX}/sign-in`, async (request, reply) => {
    const em = orm.em.fork();
    const signedIn = await signIn(em, secrets, request.body, { address: request.ip, brake: signInBrakeOf(config) });
    noStore(reply).header('set-cookie', cookieHeader(signedIn.token, OPERATOR_LOGIN_TTL_SECONDS, secure(request)));
    return signInView(signedIn.operator, signedIn.environment, signedIn.csrfToken);
  });

  app.get(`${CONSOLE_API_PREFIX}/session`, async (request, reply) => {
    const em = orm.em.fork();
    const token = consoleTokenFrom(request.headers);
    // No CSRF token yet (this is how the page gets it back after a reload): a read of one's own sign-in, which no other site can read.
    const principal = await operatorForToken(em, token);
    const operator = requireSignedIn(token ? principal : null);
    noStore(reply);
    return signInView(await readOperator(em, operator), operator.environment, csrfTokenFor(token!));
  });

  app.put(`${CONSOLE_API_PREFIX}/environment`, async (request, reply) => {
    const em = orm.em.fork();
    const principal = await signedInOperator(request, em);
    const environment = await switchEnvironment(em, principal, request.body);
    noStore(reply);
    return { environment };
  });

  app.post(`${CONSOLE_API_PREFIX}/sign-out`, async (request, reply) => {
    const em = orm.em.fork();
    const principal = await signedInOperator(request, em);
    await signOut(em, principal);
    return noStore(reply)
      .header('set-cookie', cookieHeader('', 0, secure(request)))
      .code(204)
      .send();
  });
}
