/**
 * Raw SQL: (b) spending a code is a compare-and-set `update … returning` (a step used once), and
 * enrolment an upsert `on conflict … do update … where` not confirmed.
 */
import { REFUSALS, requireOperator } from '../auth/authorization.js';
import { raw, type EntityManager } from '@mikro-orm/postgresql';
import { OperatorSchema, OperatorTotpSchema } from '../../entities/operator.entity.js';
import { Secret, TOTP } from 'otpauth';
import { renderSVG } from 'uqr';
import type { OperatorPrincipal, TenantPrincipal } from '../auth/context.js';
import type { ServiceSecrets } from '../auth/secrets.js';
import { ApiError } from '../shared/errors.js';
import { recordOperatorAction } from './operator-audit.js';

/** Who the authenticator app says the code is for. */
const TOTP_ISSUER = 'openkyc';
/** Bytes of the shared secret: 160 bits, RFC 4226's recommendation and what authenticator apps expect. */
const TOTP_SECRET_BYTES = 20;
/** Steps either side of now a code is accepted in (30 s each): a phone clock a little off still works. */
const TOTP_WINDOW_STEPS = 1;

/** What enrolling shows the operator once: the secret to type in, the otpauth URI and its QR code as SVG. */
export interface TotpEnrolment {
  secret: string;
  otpauthUri: string;
  qrSvg: string;
}

/** RFC 6238 defaults (SHA-1, 6 digits, 30 s): what every authenticator app reads from the QR code. */
function totpOf(secretBase32: string, label: string): TOTP {
  return new TOTP({ issuer: TOTP_ISSUER, label, secret: Secret.fromBase32(secretBase32) });
}

/** The stored second factor of an operator, opened; null when there is none. */
async function readTotp(
  em: EntityManager,
  secrets: ServiceSecrets,
  operatorId: string,
): Promise<{ secret: string; confirmed: boolean; email: string } | null> {
  const [row] = await em.execute<{ secret_sealed: string; confirmed_at: Date | null; email: string }[]>(
    'select t.secret_sealed, t.confirmed_at, o.email from operator_totp t join operator o on o.id = t.operator_id where t.operator_id = ?',
    [operatorId],
  );
  return row ? { secret: secrets.decrypt(row.secret_sealed), confirmed: row.confirmed_at !== null, email: row.email } : null;
}

/**
 * Checks a code and spends its time step: the step must be later than the last one used, set by
 * one conditional statement, so the same code (or an older one) is refused even by two requests
 * at once. Returns false for a wrong, malformed or replayed code.
 */
async function spendCode(em: EntityManager, operatorId: string, secret: string, email: string, code: unknown): Promise<boolean> {
  if (typeof code !== 'string' || !/^\d{6}$/.test(code.trim())) return false;
  const totp = totpOf(secret, email);
  const delta = totp.validate({ token: code.trim(), window: TOTP_WINDOW_STEPS });
  if (delta === null) return false;
  const step = totp.counter() + delta;
  const spent = await em.execute<{ operator_id: string }[]>(
    `update operator_totp set last_used_step = ?
      where operator_id = ? and (last_used_step is null or last_used_step < ?) returning operator_id`,
    [step, operatorId, step],
  );
  return spent.length > 0;
}

/** Starts (or restarts, until confirmed) enrolling the caller's authenticator app: the secret is shown this once. */
export async function startTotpEnrolment(em: EntityManager, secrets: ServiceSecrets, principal: TenantPrincipal): Promise<TotpEnrolment> {
  const operator = requireOperator(principal, REFUSALS.secondFactor);
  const existing = await readTotp(em, secrets, operator.operatorId);
  if (existing?.confirmed) throw new ApiError('conflict', 'A second factor is set up already: turn it off first to enrol another device.');
  const email = (await em.findOne(OperatorSchema, operator.operatorId, { fields: ['email'] }))?.email ?? '';
  const secret = new Secret({ size: TOTP_SECRET_BYTES }).base32;
  await em.execute(
    `insert into operator_totp (operator_id, secret_sealed, confirmed_at, last_used_step, created_at) values (?, ?, null, null, now())
     on conflict (operator_id) do update set secret_sealed = excluded.secret_sealed, last_used_step = null, created_at = now()
     where operator_totp.confirmed_at is null`,
    [operator.operatorId, secrets.encrypt(secret)],
    'run',
  );
  const otpauthUri = totpOf(secret, email).toString();
  return { secret, otpauthUri, qrSvg: renderSVG(otpauthUri, { pixelSize: 4 }) };
}

/** Confirms the enrolment with a first code from the app; from then on sign-in asks for a code. */
export async function confirmTotpEnrolment(
  em: EntityManager,
  secrets: ServiceSecrets,
  principal: TenantPrincipal,
  code: string,
): Promise<void> {
  const operator = requireOperator(principal, REFUSALS.secondFactor);
  const pending = await readTotp(em, secrets, operator.operatorId);
  if (!pending || pending.confirmed) throw new ApiError('conflict', 'There is no enrolment to confirm: start one first.');
  if (!(await spendCode(em, operator.operatorId, pending.secret, pending.email, code)))
    throw new ApiError('otp_invalid', 'Wrong code: enter the 6 digits your authenticator app shows now.');
  await em.transactional(async (tx) => {
    await tx.nativeUpdate(OperatorTotpSchema, { operatorId: operator.operatorId }, { confirmedAt: raw('now()') });
    await recordOperatorAction(tx as EntityManager, operator, {
      action: 'operator.totp_enrolled',
      targetType: 'operator',
      targetId: operator.operatorId,
      environment: null,
    });
  });
}

/** Turns off the caller's own second factor; it takes a current code, so a stolen sign-in alone cannot. */
export async function disableOwnTotp(em: EntityManager, secrets: ServiceSecrets, principal: TenantPrincipal, code: string): Promise<void> {
  const operator = requireOperator(principal, REFUSALS.secondFactor);
  const current = await readTotp(em, secrets, operator.operatorId);
  if (!current?.confirmed) throw new ApiError('conflict', 'This account has no second factor.');
  if (!(await spendCode(em, operator.operatorId, current.secret, current.email, code)))
    throw new ApiError('otp_invalid', 'Wrong code: enter the 6 digits your authenticator app shows now.');
  await removeTotp(em, operator, operator.operatorId);
}

/** Deletes an operator's second factor and audits who did (the operator or an admin who lost-device reset it). */
export async function removeTotp(em: EntityManager, actor: OperatorPrincipal, operatorId: string): Promise<void> {
  await em.transactional(async (tx) => {
    await tx.nativeDelete(OperatorTotpSchema, { operatorId });
    await recordOperatorAction(tx as EntityManager, actor, {
      action: 'operator.totp_disabled',
      targetType: 'operator',
      targetId: operatorId,
      environment: null,
    });
  });
}

/** Which of these operators have a confirmed second factor (one statement for a page of operators). */
export async function operatorsWithTotp(em: EntityManager, operatorIds: readonly string[]): Promise<string[]> {
  if (operatorIds.length === 0) return [];
  const rows = await em.find(
    OperatorTotpSchema,
    { operatorId: { $in: [...operatorIds] }, confirmedAt: { $ne: null } },
    { fields: ['operatorId'] },
  );
  return rows.map((row) => row.operatorId);
}

/** Whether an operator has a confirmed second factor (the console shows it; sign-in asks for the code). */
export async function hasTotp(em: EntityManager, operatorId: string): Promise<boolean> {
  return (await em.count(OperatorTotpSchema, { operatorId, confirmedAt: { $ne: null } })) > 0;
}

/** The sign-in's check: 'none' without a confirmed second factor, otherwise whether the code is right and unused. */
export async function checkSignInCode(
  em: EntityManager,
  secrets: ServiceSecrets,
  operatorId: string,
  code: string | undefined,
): Promise<'none' | 'missing' | 'right' | 'wrong'> {
  const current = await readTotp(em, secrets, operatorId);
  if (!current?.confirmed) return 'none';
  if (!code) return 'missing';
  return (await spendCode(em, operatorId, current.secret, current.email, code)) ? 'right' : 'wrong';
}
