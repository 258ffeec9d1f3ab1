import { LockMode } from '@mikro-orm/core';
import { raw, type EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { OPERATOR_ROLES, OperatorLoginSchema, OperatorSchema } from '../../entities/operator.entity.js';
import { REFUSALS, requireAdmin, requireOperator } from '../auth/authorization.js';
import type { OperatorPrincipal, TenantPrincipal } from '../auth/context.js';
import { hashPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../auth/passwords.js';
import { ApiError, validationError } from '../shared/errors.js';
import { parseOrThrow } from '../shared/validation.js';
import { recordOperatorAction } from './operator-audit.js';
import {
  checkOwnPassword,
  createOperator,
  DEFAULT_SIGN_IN_BRAKE,
  type SignInBrake,
  summarise,
  type CreateOperatorInput,
  type OperatorSummary,
} from './operator.service.js';
import { removeTotp } from './totp.service.js';

/** A new password, by the rules every password follows. */
const PasswordSchema = z
  .string()
  .min(PASSWORD_MIN_LENGTH, `password must have at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(PASSWORD_MAX_LENGTH);

/** An admin adds a colleague with an initial password, which the colleague replaces at first sign-in. Audited. */
export async function addOperator(
  em: EntityManager,
  principal: TenantPrincipal,
  input: Omit<CreateOperatorInput, 'tenantId'>,
): Promise<OperatorSummary> {
  const admin = requireAdmin(principal, REFUSALS.operatorAdmin);
  return em.transactional(async (tx) => {
    const created = await createOperator(tx as EntityManager, { ...input, tenantId: admin.tenantId }, true);
    await recordOperatorAction(tx as EntityManager, admin, {
      action: 'operator.created',
      targetType: 'operator',
      targetId: created.id,
      environment: null,
      details: { email: created.email, role: created.role },
    });
    return created;
  });
}

/** An operator of the admin's tenant, locked for the change; 404 for anyone else's. */
async function lockColleague(tx: EntityManager, admin: OperatorPrincipal, operatorId: string) {
  if (!/^[0-9a-f-]{36}$/i.test(operatorId)) throw new ApiError('not_found', 'Operator not found.');
  const operator = await tx.findOne(OperatorSchema, { id: operatorId, tenant: admin.tenantId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!operator) throw new ApiError('not_found', 'Operator not found.');
  return operator;
}

/**
 * Refuses a change that would leave the tenant without an active admin. The tenant's admin rows
 * are locked first, so two admins demoting each other at once cannot both succeed.
 */
async function assertAnotherAdmin(tx: EntityManager, tenantId: string, operatorId: string, name: string): Promise<void> {
  const admins = await tx.find(
    OperatorSchema,
    { tenant: tenantId, role: 'admin', disabledAt: null },
    { fields: ['id'], orderBy: { id: 'asc' }, lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  if (!admins.some((admin) => admin.id !== operatorId))
    throw new ApiError('last_admin', `${name} is the last admin of the organisation: make someone else admin first.`);
}

/** What an admin may change of a colleague. */
export const UpdateOperatorInputSchema = z.object({ role: z.enum(OPERATOR_ROLES).optional(), disabled: z.boolean().optional() }).strict();

/** Changes a colleague's role or disables / enables them (a disabled operator's sign-ins end at once); never the last admin. Audited. */
export async function updateOperator(
  em: EntityManager,
  principal: TenantPrincipal,
  operatorId: string,
  rawInput: unknown,
): Promise<OperatorSummary> {
  const admin = requireAdmin(principal, REFUSALS.operatorAdmin);
  const input = parseOrThrow(UpdateOperatorInputSchema, rawInput);
  return em.transactional(async (tx) => {
    const manager = tx as EntityManager;
    const operator = await lockColleague(manager, admin, operatorId);
    const wasActiveAdmin = operator.role === 'admin' && operator.disabledAt == null;
    const losesAdmin = (input.role !== undefined && input.role !== 'admin') || input.disabled === true;
    if (wasActiveAdmin && losesAdmin) await assertAnotherAdmin(manager, admin.tenantId, operator.id, operator.name);
    if (input.role !== undefined && input.role !== operator.role) {
      await recordOperatorAction(manager, admin, {
        action: 'operator.role_changed',
        targetType: 'operator',
        targetId: operator.id,
        environment: null,
        details: { from: operator.role, to: input.role },
      });
      operator.role = input.role;
    }
    if (input.disabled !== undefined && input.disabled !== (operator.disabledAt != null)) {
      operator.disabledAt = input.disabled ? new Date() : null;
      if (input.disabled)
        await manager.nativeUpdate(OperatorLoginSchema, { operator: operator.id, revokedAt: null }, { revokedAt: raw('now()') });
      await recordOperatorAction(manager, admin, {
        action: input.disabled ? 'operator.disabled' : 'operator.enabled',
        targetType: 'operator',
        targetId: operator.id,
        environment: null,
      });
    }
    await manager.flush();
    return summarise(operator);
  });
}

/**
 * An admin sets a temporary password for a colleague who lost theirs: the colleague's sign-ins
 * end, any lock-out is lifted, and the console asks them for a new password at the next sign-in. Audited.
 */
export async function resetOperatorPassword(
  em: EntityManager,
  principal: TenantPrincipal,
  operatorId: string,
  password: string,
): Promise<OperatorSummary> {
  const admin = requireAdmin(principal, REFUSALS.operatorAdmin);
  const temporary = parseOrThrow(z.object({ password: PasswordSchema }), { password }).password;
  const passwordHash = await hashPassword(temporary);
  return em.transactional(async (tx) => {
    const manager = tx as EntityManager;
    const operator = await lockColleague(manager, admin, operatorId);
    Object.assign(operator, { passwordHash, passwordChangeRequired: true, failedLogins: 0, lockedUntil: null });
    await manager.nativeUpdate(OperatorLoginSchema, { operator: operator.id, revokedAt: null }, { revokedAt: raw('now()') });
    await recordOperatorAction(manager, admin, {
      action: 'operator.password_reset',
      targetType: 'operator',
      targetId: operator.id,
      environment: null,
    });
    await manager.flush();
    return summarise(operator);
  });
}

/** An admin turns off a colleague's second factor (a lost phone); the colleague can enrol again. Audited. */
export async function resetOperatorTotp(em: EntityManager, principal: TenantPrincipal, operatorId: string): Promise<void> {
  const admin = requireAdmin(principal, REFUSALS.operatorAdmin);
  await em.transactional(async (tx) => {
    await lockColleague(tx as EntityManager, admin, operatorId);
    await removeTotp(tx as EntityManager, admin, operatorId);
  });
}

/**
 * The signed-in operator replaces their own password, proving the current one: a wrong one counts
 * towards the sign-in brake, so a left-open console cannot be used to guess it. Their other
 * sign-ins end; this one stays. Audited.
 */
export async function changeOwnPassword(
  em: EntityManager,
  caller: TenantPrincipal,
  currentPassword: string,
  newPassword: string,
  brake: SignInBrake = DEFAULT_SIGN_IN_BRAKE,
): Promise<void> {
  const principal = requireOperator(caller, REFUSALS.password);
  const next = parseOrThrow(z.object({ newPassword: PasswordSchema }), { newPassword }).newPassword;
  if (next === currentPassword)
    throw validationError([{ field: 'newPassword', code: 'unchanged', message: 'choose a password different from the current one' }]);
  const operator = await em.findOneOrFail(OperatorSchema, { id: principal.operatorId }, { populate: ['passwordHash'] });
  await checkOwnPassword(
    em,
    operator,
    String(currentPassword ?? ''),
    validationError([{ field: 'currentPassword', code: 'wrong', message: 'the current password is wrong' }]),
    brake,
  );
  const passwordHash = await hashPassword(next);
  await em.transactional(async (tx) => {
    await tx.nativeUpdate(OperatorSchema, { id: operator.id }, { passwordHash, passwordChangeRequired: false });
    // Every other sign-in of this operator ends (audit N6): whoever knew the old password is out.
    await tx.nativeUpdate(
      OperatorLoginSchema,
      { operator: operator.id, id: { $ne: principal.loginId }, revokedAt: null },
      { revokedAt: raw('now()') },
    );
    await recordOperatorAction(tx as EntityManager, principal, {
      action: 'operator.password_changed',
      targetType: 'operator',
      targetId: principal.operatorId,
      environment: null,
    });
  });
}
