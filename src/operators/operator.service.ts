import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import type { ApiKeyEnvironment } from '../../entities/api-key.entity.js';
import { OPERATOR_ROLES, OperatorLoginSchema, OperatorSchema, type Operator, type OperatorRole } from '../../entities/operator.entity.js';
import { TenantSchema } from '../../entities/tenant.entity.js';
import type { OperatorPrincipal } from '../auth/context.js';
import type { ServiceSecrets } from '../auth/secrets.js';
import { decoyPasswordHash, hashPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, verifyPassword } from '../auth/passwords.js';
import { ApiError, notFound } from '../errors.js';
import { parseOrThrow } from '../validation.js';
import { UUID_PATTERN, type Unchecked } from '../input-rules.js';
import { checkSignInCode, hasTotp } from './totp.service.js';

/** Consecutive wrong passwords after which an account is locked. */
export const OPERATOR_MAX_FAILED_LOGINS = 5;
/** How long a locked account refuses every sign-in, in seconds. */
export const OPERATOR_LOCKOUT_SECONDS = 15 * 60;
/** How long a console sign-in lasts, in seconds: a working day, then the operator signs in again. */
export const OPERATOR_LOGIN_TTL_SECONDS = 8 * 60 * 60;
/** Bytes of randomness in a console cookie's token. */
const LOGIN_TOKEN_BYTES = 32;
/** Longest cookie token we bother hashing, in characters (ours are 43). */
const LOGIN_TOKEN_MAX_LENGTH = 100;

/** What creating an operator takes. */
export const CreateOperatorInputSchema = z
  .object({
    tenantId: z.string().regex(UUID_PATTERN, 'must be a UUID'),
    // Not RFC 5322 in full: an address a person can type, with one @ and a dot in the domain.
    email: z
      .string()
      .trim()
      .toLowerCase()
      .max(254)
      .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'email must be an address like ada@example.com'),
    name: z.string().trim().min(1, 'name is required').max(200),
    role: z.enum(OPERATOR_ROLES),
    password: z.string().min(PASSWORD_MIN_LENGTH, `password must have at least ${PASSWORD_MIN_LENGTH} characters`).max(PASSWORD_MAX_LENGTH),
  })
  .strict();

/** What createOperator accepts before validation: GraphQL's `CreateOperatorInput` with the caller's tenant, or the CLI's arguments. */
export type CreateOperatorInput = Unchecked<z.input<typeof CreateOperatorInputSchema>>;

/** An operator as shown to people and to the operator itself: never the hash. */
export interface OperatorSummary {
  id: string;
  tenantId: string;
  email: string;
  name: string;
  role: OperatorRole;
  createdAt: Date;
  disabled: boolean;
  /** The password was set by an admin: the operator must choose their own before working. */
  passwordChangeRequired: boolean;
  /** Whether sign-in asks for a one-time code. */
  totpEnabled: boolean;
}

/** Shapes an operator row for display. */
export function summarise(operator: Operator, totpEnabled = false): OperatorSummary {
  return {
    id: operator.id,
    tenantId: operator.tenant.id,
    email: operator.email,
    name: operator.name,
    role: operator.role,
    createdAt: operator.createdAt,
    disabled: operator.disabledAt != null,
    passwordChangeRequired: operator.passwordChangeRequired,
    totpEnabled,
  };
}

/** Creates an operator of a tenant (the CLI makes the first admin); the address must be unused across tenants: 409 otherwise. */
export async function createOperator(
  em: EntityManager,
  rawInput: CreateOperatorInput,
  /** True when an admin chose the password for someone else: they change it at their first sign-in. */
  passwordChangeRequired = false,
): Promise<OperatorSummary> {
  const input = parseOrThrow(CreateOperatorInputSchema, rawInput);
  const tenant = await em.findOne(TenantSchema, { id: input.tenantId });
  if (!tenant) throw notFound('Tenant');
  if (await em.findOne(OperatorSchema, { email: input.email }))
    throw new ApiError('conflict', `An operator with the address ${input.email} exists already.`);
  const operator = em.create(OperatorSchema, {
    id: randomUUID(),
    tenant,
    email: input.email,
    name: input.name,
    role: input.role,
    passwordHash: await hashPassword(input.password),
    failedLogins: 0,
    lockedUntil: null,
    createdAt: new Date(),
    disabledAt: null,
    passwordChangeRequired,
  });
  await em.flush();
  return summarise(operator);
}

/** What signing in takes; the environment is where the operator starts working. */
export const SignInInputSchema = z
  .object({
    email: z.string().trim().toLowerCase().min(1, 'email is required').max(254),
    password: z.string().min(1, 'password is required').max(PASSWORD_MAX_LENGTH),
    environment: z.enum(['live', 'sandbox']).default('live'),
    /** The authenticator app's code, for operators with a second factor. */
    totp_code: z.string().trim().max(10).optional(),
  })
  .strict();

/** A new console sign-in: `token` goes into the cookie, `csrfToken` to the page; neither is stored. */
export interface SignedIn {
  token: string;
  csrfToken: string;
  operator: OperatorSummary;
  environment: ApiKeyEnvironment;
  expiresAt: Date;
}

/** The refusal of a wrong address or password: one message for both, so that addresses cannot be probed. */
function wrongCredentials(): ApiError {
  return new ApiError('unauthenticated', 'Wrong email address or password.');
}

/** The refusal of a locked account, saying when to try again. */
function locked(until: Date): ApiError {
  const seconds = Math.max(1, Math.ceil((until.getTime() - Date.now()) / 1000));
  return new ApiError('account_locked', `Too many wrong passwords: this account is locked for ${seconds} s.`, [], {
    'Retry-After': String(seconds),
  });
}

/**
 * Signs an operator in. A wrong password counts towards the lock-out; the count and the lock are
 * changed by single conditional statements, so parallel guesses cannot slip past the limit, and a
 * right password during a lock is refused like a wrong one would be (the lock says so).
 */
export async function signIn(em: EntityManager, secrets: ServiceSecrets, rawInput: unknown): Promise<SignedIn> {
  const input = parseOrThrow(SignInInputSchema, rawInput);
  const operator = await em.findOne(OperatorSchema, { email: input.email, disabledAt: null }, { populate: ['passwordHash'] });
  if (!operator) {
    await verifyPassword(input.password, await decoyPasswordHash());
    throw wrongCredentials();
  }
  // An expired lock starts a fresh count.
  await em.execute('update operator set failed_logins = 0, locked_until = null where id = ? and locked_until <= now()', [operator.id]);
  const [state] = await em.execute<{ locked_until: Date | null }[]>('select locked_until from operator where id = ?', [operator.id]);
  if (state?.locked_until) throw locked(new Date(state.locked_until));

  if (!(await verifyPassword(input.password, operator.passwordHash))) throw await countFailure(em, operator.id, wrongCredentials());
  // The second factor, when enrolled: a missing code is asked for, a wrong or replayed one counts like a wrong password.
  const second = await checkSignInCode(em, secrets, operator.id, input.totp_code);
  if (second === 'missing')
    throw new ApiError('second_factor_required', 'This account has a second factor: enter the 6-digit code from your authenticator app.');
  if (second === 'wrong')
    throw await countFailure(em, operator.id, new ApiError('unauthenticated', 'Wrong or already used one-time code.'));
  // Right password: reset the count unless a parallel guess locked the account meanwhile.
  const [reset] = await em.execute<{ id: string }[]>(
    'update operator set failed_logins = 0 where id = ? and locked_until is null returning id',
    [operator.id],
  );
  if (!reset) {
    const [now] = await em.execute<{ locked_until: Date }[]>('select locked_until from operator where id = ?', [operator.id]);
    throw locked(new Date(now!.locked_until));
  }

  const token = randomBytes(LOGIN_TOKEN_BYTES).toString('base64url');
  const expiresAt = new Date(Date.now() + OPERATOR_LOGIN_TTL_SECONDS * 1000);
  em.create(OperatorLoginSchema, {
    id: randomUUID(),
    operator,
    tokenHash: hashLoginToken(token),
    environment: input.environment,
    createdAt: new Date(),
    expiresAt,
    revokedAt: null,
  });
  await em.flush();
  return {
    token,
    csrfToken: csrfTokenFor(token),
    operator: summarise(operator, second === 'right'),
    environment: input.environment,
    expiresAt,
  };
}

/**
 * Counts one failed proof (a wrong password, a wrong code) towards the lock-out in one conditional
 * statement and returns what to throw: the lock when this failure reached the limit, `refusal` otherwise.
 */
export async function countFailure(em: EntityManager, operatorId: string, refusal: ApiError): Promise<ApiError> {
  const [after] = await em.execute<{ failed_logins: number; locked_until: Date | null }[]>(
    `update operator
        set failed_logins = failed_logins + 1,
            locked_until = case when failed_logins + 1 >= ? then now() + make_interval(secs => ?) else locked_until end
      where id = ?
      returning failed_logins, locked_until`,
    [OPERATOR_MAX_FAILED_LOGINS, OPERATOR_LOCKOUT_SECONDS, operatorId],
  );
  return after?.locked_until ? locked(new Date(after.locked_until)) : refusal;
}

/** Hex SHA-256 of a cookie token: the token has 256 bits of entropy, so a fast hash is the right tool. */
function hashLoginToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * The CSRF token of a sign-in, derived from the cookie's token (an HMAC keyed with it): the page
 * can be given it again after a reload, and it is worthless without the cookie, which another
 * site's page can neither read nor (SameSite=Strict) make the browser send.
 */
export function csrfTokenFor(token: string): string {
  return createHmac('sha256', token).update('openkyc console csrf').digest('base64url');
}

/** True when `presented` is the CSRF token of the sign-in whose cookie token is `token`. */
export function csrfTokenMatches(token: string, presented: string | undefined): boolean {
  if (!presented) return false;
  const expected = Buffer.from(csrfTokenFor(token));
  const given = Buffer.from(presented);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** A console sign-in's principal, or null when the token is unknown, signed out, expired or its operator disabled. */
export async function operatorForToken(em: EntityManager, token: string | undefined): Promise<OperatorPrincipal | null> {
  if (!token || token.length > LOGIN_TOKEN_MAX_LENGTH) return null;
  // One plain statement per request, like an API key's: no entity hydration.
  const [row] = await em.execute<
    {
      login_id: string;
      environment: ApiKeyEnvironment;
      operator_id: string;
      tenant_id: string;
      name: string;
      role: OperatorRole;
      password_change_required: boolean;
    }[]
  >(
    `select l.id as login_id, l.environment, o.id as operator_id, o.tenant_id, o.name, o.role, o.password_change_required
       from operator_login l join operator o on o.id = l.operator_id
      where l.token_hash = ? and l.revoked_at is null and l.expires_at > now() and o.disabled_at is null`,
    [hashLoginToken(token)],
  );
  if (!row) return null;
  return {
    kind: 'operator',
    tenantId: row.tenant_id,
    environment: row.environment,
    operatorId: row.operator_id,
    operatorName: row.name,
    role: row.role,
    loginId: row.login_id,
    passwordChangeRequired: row.password_change_required,
  };
}

/** Ends a console sign-in: its cookie stops working at once. */
export async function signOut(em: EntityManager, principal: OperatorPrincipal): Promise<void> {
  await em.execute('update operator_login set revoked_at = now() where id = ? and revoked_at is null', [principal.loginId]);
}

/** Moves a console sign-in to another environment of the tenant: its next requests see only that environment's objects. */
export async function switchEnvironment(
  em: EntityManager,
  principal: OperatorPrincipal,
  rawEnvironment: unknown,
): Promise<ApiKeyEnvironment> {
  const { environment } = parseOrThrow(z.object({ environment: z.enum(['live', 'sandbox']) }).strict(), rawEnvironment);
  await em.execute('update operator_login set environment = ? where id = ?', [environment, principal.loginId]);
  return environment;
}

/** The operator behind a principal, for the console's "who am I". */
export async function readOperator(em: EntityManager, principal: OperatorPrincipal): Promise<OperatorSummary> {
  return summarise(await em.findOneOrFail(OperatorSchema, { id: principal.operatorId }), await hasTotp(em, principal.operatorId));
}
