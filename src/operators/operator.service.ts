/**
 * Raw SQL: (b) the sign-in brake's counter is an arithmetic upsert (`failures = f.failures + 1`, a
 * lock computed from it) with `returning`.
 */
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { raw, type EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import type { ApiKeyEnvironment } from '../../entities/api-key.entity.js';
import {
  OPERATOR_ROLES,
  OperatorLoginSchema,
  OperatorSchema,
  SignInFailureSchema,
  type Operator,
  type OperatorRole,
} from '../../entities/operator.entity.js';
import { TenantSchema } from '../../entities/tenant.entity.js';
import type { OperatorPrincipal } from '../auth/context.js';
import type { ServiceSecrets } from '../auth/secrets.js';
import type { Config } from '../shared/config.js';
import { decoyPasswordHash, hashPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, verifyPassword } from '../auth/passwords.js';
import { ApiError, notFound } from '../shared/errors.js';
import { parseOrThrow } from '../shared/validation.js';
import { UUID_PATTERN, type Unchecked } from '../shared/input-rules.js';
import { checkSignInCode, hasTotp } from './totp.service.js';

/** Default of SIGN_IN_MAX_FAILURES: wrong passwords or codes one address may make for one e-mail address before that pair is refused. */
export const OPERATOR_MAX_FAILED_LOGINS = 5;
/** Default of SIGN_IN_FAILURE_WINDOW_SECONDS: how long failures are counted, and a refused pair stays refused, in seconds. */
export const OPERATOR_LOCKOUT_SECONDS = 15 * 60;
/** How long an operator's sign-in lasts, in seconds (8 hours). */
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

/** The refusal of an e-mail address braked for this client address, saying when to try again (the same whether or not it is an operator's). */
function locked(until: Date): ApiError {
  const seconds = Math.max(1, Math.ceil((until.getTime() - Date.now()) / 1000));
  return new ApiError('account_locked', `Too many failed sign-ins for this e-mail address from here: try again in ${seconds} s.`, [], {
    'Retry-After': String(seconds),
  });
}

/** The sign-in brake's settings (SIGN_IN_MAX_FAILURES, SIGN_IN_FAILURE_WINDOW_SECONDS, SIGN_IN_ACCOUNT_SLOW_AFTER, SIGN_IN_ACCOUNT_DELAY_MS). */
export interface SignInBrake {
  maxFailures: number;
  windowSeconds: number;
  slowAfter: number;
  delayMs: number;
}

/** The brake's defaults, for callers without a configuration at hand. */
export const DEFAULT_SIGN_IN_BRAKE: SignInBrake = {
  maxFailures: OPERATOR_MAX_FAILED_LOGINS,
  windowSeconds: OPERATOR_LOCKOUT_SECONDS,
  slowAfter: 20,
  delayMs: 1000,
};

/** The brake a configuration sets. */
export function signInBrakeOf(config: Config): SignInBrake {
  return {
    maxFailures: config.SIGN_IN_MAX_FAILURES,
    windowSeconds: config.SIGN_IN_FAILURE_WINDOW_SECONDS,
    slowAfter: config.SIGN_IN_ACCOUNT_SLOW_AFTER,
    delayMs: config.SIGN_IN_ACCOUNT_DELAY_MS,
  };
}

/** Who is trying: the e-mail address typed and the client address it comes from. */
export interface SignInAttempt {
  /** The client address (client-address.ts), or a fixed tag for a signed-in operator's own checks. */
  address: string;
  brake: SignInBrake;
}

/** The brake's row keys: digests of the e-mail alone and of the e-mail with the address (no address or e-mail kept in clear). */
function brakeKeys(email: string, address: string): { account: string; attempt: string } {
  const account = createHash('sha256').update(`account\0${email}`).digest('hex');
  return { account, attempt: createHash('sha256').update(`attempt\0${email}\0${address}`).digest('hex') };
}

/**
 * Refuses an e-mail address that failed too often from this client address (429 account_locked,
 * also for e-mails that are nobody's, so the answer tells nothing), and slows, never refuses,
 * attempts on an e-mail that failed often from everywhere: a stranger elsewhere cannot lock its
 * operator out. An expired lock or count starts afresh.
 */
async function applyBrake(em: EntityManager, keys: { account: string; attempt: string }, brake: SignInBrake): Promise<void> {
  await em.execute(
    `delete from sign_in_failure
      where attempt_key = ?
        and (locked_until <= now() or (locked_until is null and updated_at <= now() - make_interval(secs => ?)))`,
    [keys.attempt, brake.windowSeconds],
  );
  const state = await em.findOne(SignInFailureSchema, { attemptKey: keys.attempt }, { fields: ['lockedUntil'], disableIdentityMap: true });
  if (state?.lockedUntil) throw locked(new Date(state.lockedUntil));
  const [account] = await em.execute<{ total: number | string }[]>(
    'select coalesce(sum(failures), 0) as total from sign_in_failure where account_key = ? and updated_at > now() - make_interval(secs => ?)',
    [keys.account, brake.windowSeconds],
  );
  if (Number(account?.total ?? 0) >= brake.slowAfter) await sleep(brake.delayMs);
}

/**
 * Signs an operator in. Failures are counted per e-mail and client address (`applyBrake`,
 * `countFailure`) in single conditional statements, so parallel guesses cannot slip past the
 * limit; an unknown e-mail gets the same answers and the same work (a decoy password hash) as a
 * real one, and a right password from a braked address is refused like a wrong one would be.
 */
export async function signIn(
  em: EntityManager,
  secrets: ServiceSecrets,
  rawInput: unknown,
  attempt: SignInAttempt = { address: 'unknown', brake: DEFAULT_SIGN_IN_BRAKE },
): Promise<SignedIn> {
  const input = parseOrThrow(SignInInputSchema, rawInput);
  const keys = brakeKeys(input.email, attempt.address);
  await applyBrake(em, keys, attempt.brake);
  const operator = await em.findOne(OperatorSchema, { email: input.email, disabledAt: null }, { populate: ['passwordHash'] });
  if (!operator) {
    await verifyPassword(input.password, await decoyPasswordHash());
    throw await countFailure(em, keys, attempt.brake, wrongCredentials());
  }
  if (!(await verifyPassword(input.password, operator.passwordHash))) throw await countFailure(em, keys, attempt.brake, wrongCredentials());
  // The second factor, when enrolled: a missing code is asked for, a wrong or replayed one counts like a wrong password.
  const second = await checkSignInCode(em, secrets, operator.id, input.totp_code);
  if (second === 'missing')
    throw new ApiError('second_factor_required', 'This account has a second factor: enter the 6-digit code from your authenticator app.');
  if (second === 'wrong')
    throw await countFailure(em, keys, attempt.brake, new ApiError('unauthenticated', 'Wrong or already used one-time code.'));
  // Right password: clear this pair's count unless a parallel guess locked it meanwhile.
  const lockedMeanwhile = await em.findOne(
    SignInFailureSchema,
    { attemptKey: keys.attempt, lockedUntil: { $ne: null } },
    { fields: ['lockedUntil'], disableIdentityMap: true },
  );
  if (lockedMeanwhile?.lockedUntil) throw locked(new Date(lockedMeanwhile.lockedUntil));
  await em.nativeDelete(SignInFailureSchema, { attemptKey: keys.attempt, lockedUntil: null });

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
    clientAddress: attempt.address,
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
 * Counts one failed proof (a wrong password, a wrong code) for an e-mail and client address in
 * one statement and returns what to throw: the lock when this failure reached the limit,
 * `refusal` otherwise.
 */
async function countFailure(
  em: EntityManager,
  keys: { account: string; attempt: string },
  brake: SignInBrake,
  refusal: ApiError,
): Promise<ApiError> {
  const [after] = await em.execute<{ locked_until: Date | null }[]>(
    `insert into sign_in_failure as f (attempt_key, account_key, failures, locked_until, updated_at)
     values (?, ?, 1, case when 1 >= ? then now() + make_interval(secs => ?) end, now())
     on conflict (attempt_key) do update
        set failures = f.failures + 1,
            locked_until = case when f.failures + 1 >= ? then coalesce(f.locked_until, now() + make_interval(secs => ?)) else f.locked_until end,
            updated_at = now()
     returning locked_until`,
    [keys.attempt, keys.account, brake.maxFailures, brake.windowSeconds, brake.maxFailures, brake.windowSeconds],
  );
  return after?.locked_until ? locked(new Date(after.locked_until)) : refusal;
}

/**
 * A signed-in operator proving their password again (changing it): braked like a sign-in, under
 * a pair of their own e-mail and a tag for the signed-in console, so a left-open console cannot be
 * used to guess it.
 */
export async function checkOwnPassword(
  em: EntityManager,
  operator: Pick<Operator, 'id' | 'email' | 'passwordHash'>,
  password: string,
  refusal: ApiError,
  brake: SignInBrake = DEFAULT_SIGN_IN_BRAKE,
): Promise<void> {
  const keys = brakeKeys(operator.email, `signed-in:${operator.id}`);
  await applyBrake(em, keys, brake);
  if (!(await verifyPassword(password, operator.passwordHash))) throw await countFailure(em, keys, brake, refusal);
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
  // One statement per request, like an API key's (the sign-in joined to its operator), kept out of
  // the request's identity map: the principal is all the request needs.
  const login = await em.findOne(
    OperatorLoginSchema,
    { tokenHash: hashLoginToken(token), revokedAt: null, expiresAt: { $gt: raw('now()') }, operator: { disabledAt: null } },
    {
      fields: [
        'id',
        'environment',
        'clientAddress',
        'operator.tenant',
        'operator.name',
        'operator.role',
        'operator.passwordChangeRequired',
      ],
      disableIdentityMap: true,
    },
  );
  if (!login) return null;
  const operator = login.operator.getEntity();
  return {
    kind: 'operator',
    tenantId: operator.tenant.id,
    environment: login.environment,
    operatorId: operator.id,
    operatorName: operator.name,
    role: operator.role,
    loginId: login.id,
    passwordChangeRequired: operator.passwordChangeRequired,
    clientAddress: login.clientAddress ?? null,
  };
}

/** Ends a console sign-in: its cookie stops working at once. */
export async function signOut(em: EntityManager, principal: OperatorPrincipal): Promise<void> {
  await em.nativeUpdate(OperatorLoginSchema, { id: principal.loginId, revokedAt: null }, { revokedAt: raw('now()') });
}

/** Moves a console sign-in to another environment of the tenant: its next requests see only that environment's objects. */
export async function switchEnvironment(
  em: EntityManager,
  principal: OperatorPrincipal,
  rawEnvironment: unknown,
): Promise<ApiKeyEnvironment> {
  const { environment } = parseOrThrow(z.object({ environment: z.enum(['live', 'sandbox']) }).strict(), rawEnvironment);
  await em.nativeUpdate(OperatorLoginSchema, { id: principal.loginId }, { environment });
  return environment;
}

/** The operator behind a principal, for the console's "who am I". */
export async function readOperator(em: EntityManager, principal: OperatorPrincipal): Promise<OperatorSummary> {
  return summarise(await em.findOneOrFail(OperatorSchema, { id: principal.operatorId }), await hasTotp(em, principal.operatorId));
}
