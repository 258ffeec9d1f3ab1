/**
 * Operator invitations (issue 25, "Team"): an admin invites a colleague by e-mail address, name
 * and role, and gets a one-time link to hand over (no mail provider is configured in this
 * service, so the link is returned to the admin, never a password). The link's token is 256
 * random bits; only its SHA-256 is stored. Accepting it — choosing one's own password — works once
 * (one conditional update), before it expires and unless an admin revoked it.
 *
 * Raw SQL: (b) revoking and accepting an invitation are compare-and-set `update … returning`, so
 * two at once cannot both win.
 */
import { REFUSALS, requireAdmin } from '../auth/authorization.js';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { raw, type EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { OperatorInvitationSchema, OperatorSchema, type OperatorInvitation, type OperatorRole } from '../../entities/operator.entity.js';
import type { OperatorPrincipal, TenantPrincipal } from '../auth/context.js';
import { ApiError, notFound } from '../shared/errors.js';
import { isUuid, type Unchecked } from '../shared/input-rules.js';
import { parseOrThrow } from '../shared/validation.js';
import { recordOperatorAction } from './operator-audit.js';
import { createOperator, CreateOperatorInputSchema, type OperatorSummary } from './operator.service.js';

/** Bytes of randomness in an invitation token. */
const INVITATION_TOKEN_BYTES = 32;
/** Longest token we bother hashing, in characters (ours are 43). */
const INVITATION_TOKEN_MAX_LENGTH = 100;

/** What inviting takes: who, by address and name, and with which role. */
export const InviteOperatorInputSchema = CreateOperatorInputSchema.pick({ email: true, name: true, role: true }).strict();
/** What inviteOperator accepts before validation. */
export type InviteOperatorInput = Unchecked<z.input<typeof InviteOperatorInputSchema>>;

/** What accepting takes: the link's token and the password the invited person chooses. */
export const AcceptInvitationInputSchema = CreateOperatorInputSchema.pick({ password: true })
  .extend({ token: z.string().min(1, 'token is required').max(INVITATION_TOKEN_MAX_LENGTH) })
  .strict();

/** An invitation as admins see it: never the token. */
export interface Invitation {
  id: string;
  email: string;
  name: string;
  role: OperatorRole;
  invitedByName: string;
  createdAt: Date;
  expiresAt: Date;
}

interface InvitationRow {
  id: string;
  tenant_id: string;
  email: string;
  name: string;
  role: OperatorRole;
  invited_by_name: string;
  created_at: Date;
  expires_at: Date;
}

function invitationOf(row: InvitationRow): Invitation {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    invitedByName: row.invited_by_name,
    createdAt: new Date(row.created_at),
    expiresAt: new Date(row.expires_at),
  };
}

/** An invitation as its entity reads it. */
function invitationOfEntity(row: OperatorInvitation): Invitation {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    invitedByName: row.invitedByName,
    createdAt: new Date(row.createdAt),
    expiresAt: new Date(row.expiresAt),
  };
}

/** A link still usable: neither accepted nor revoked, and not expired by the database's clock. */
const PENDING = { acceptedAt: null, revokedAt: null, expiresAt: { $gt: raw('now()') } } as const;

/** The stored form of a token. */
function hashInvitationToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The one refusal of a link that does not work, whatever the reason: it tells a stranger nothing. */
function unusableLink(): ApiError {
  return new ApiError('not_found', 'This invitation link is unknown, already used, revoked or expired: ask your admin for a new one.');
}

/**
 * Invites a colleague: 409 when the address is an operator's already; an earlier pending
 * invitation of the same address is revoked (the new link replaces it). Returns the invitation
 * and its token, which is in this answer only. Audited.
 */
export async function inviteOperator(
  em: EntityManager,
  principal: TenantPrincipal,
  rawInput: InviteOperatorInput,
  ttlSeconds: number,
): Promise<{ invitation: Invitation; token: string }> {
  const admin = requireAdmin(principal, REFUSALS.operatorAdmin);
  const input = parseOrThrow(InviteOperatorInputSchema, rawInput);
  const token = randomBytes(INVITATION_TOKEN_BYTES).toString('base64url');
  return em.transactional(async (tx) => {
    const manager = tx as EntityManager;
    if ((await manager.count(OperatorSchema, { email: input.email })) > 0)
      throw new ApiError('conflict', `An operator with the address ${input.email} exists already.`);
    await manager.nativeUpdate(
      OperatorInvitationSchema,
      { tenantId: admin.tenantId, email: input.email, acceptedAt: null, revokedAt: null },
      { revokedAt: raw('now()') },
    );
    const [row] = await manager.execute<InvitationRow[]>(
      `insert into operator_invitation (id, tenant_id, email, name, role, token_hash, invited_by_operator_id, invited_by_name, expires_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, now() + make_interval(secs => ?))
       returning id, tenant_id, email, name, role, invited_by_name, created_at, expires_at`,
      [
        randomUUID(),
        admin.tenantId,
        input.email,
        input.name,
        input.role,
        hashInvitationToken(token),
        admin.operatorId,
        admin.operatorName,
        ttlSeconds,
      ],
    );
    await recordOperatorAction(manager, admin, {
      action: 'operator.invited',
      targetType: 'invitation',
      targetId: row!.id,
      environment: null,
      details: { email: input.email, role: input.role },
    });
    return { invitation: invitationOf(row!), token };
  });
}

/** The tenant's invitations still waiting for their person (not accepted, revoked or expired), newest first. */
export async function pendingInvitations(em: EntityManager, principal: TenantPrincipal): Promise<Invitation[]> {
  const admin = requireAdmin(principal, REFUSALS.operatorAdmin);
  const rows = await em.find(
    OperatorInvitationSchema,
    { tenantId: admin.tenantId, ...PENDING },
    { orderBy: { createdAt: 'desc', id: 'desc' }, limit: 100, refresh: true },
  );
  return rows.map(invitationOfEntity);
}

/** Revokes a pending invitation of the admin's tenant: its link stops working at once. 404 for any other. Audited. */
export async function revokeInvitation(em: EntityManager, principal: TenantPrincipal, invitationId: string): Promise<void> {
  const admin = requireAdmin(principal, REFUSALS.operatorAdmin);
  if (!isUuid(invitationId)) throw notFound('Invitation');
  await em.transactional(async (tx) => {
    const manager = tx as EntityManager;
    const revoked = await manager.execute<{ id: string }[]>(
      `update operator_invitation set revoked_at = now()
        where id = ? and tenant_id = ? and accepted_at is null and revoked_at is null returning id`,
      [invitationId, admin.tenantId],
    );
    if (revoked.length === 0) throw notFound('Invitation');
    await recordOperatorAction(manager, admin, {
      action: 'invitation.revoked',
      targetType: 'invitation',
      targetId: invitationId,
      environment: null,
    });
  });
}

/** Who a working link invites (shown on the page where they choose a password); 404 otherwise. */
export async function peekInvitation(
  em: EntityManager,
  rawToken: unknown,
): Promise<Pick<Invitation, 'email' | 'name' | 'role' | 'expiresAt'>> {
  const token = typeof rawToken === 'string' && rawToken.length <= INVITATION_TOKEN_MAX_LENGTH ? rawToken : '';
  const row = await em.findOne(OperatorInvitationSchema, { tokenHash: hashInvitationToken(token), ...PENDING }, { refresh: true });
  if (!row) throw unusableLink();
  const { email, name, role, expiresAt } = invitationOfEntity(row);
  return { email, name, role, expiresAt };
}

/**
 * Accepts an invitation with the password its person chose: spends the link (one conditional
 * update, so two tabs or a replay cannot both succeed), creates the operator with that password
 * (no change required at first sign-in) and audits it under the new operator's name, in one
 * transaction: an address taken meanwhile (409) leaves the link unspent.
 */
export async function acceptInvitation(em: EntityManager, rawInput: unknown, clientAddress: string | null): Promise<OperatorSummary> {
  const input = parseOrThrow(AcceptInvitationInputSchema, rawInput);
  return em.transactional(async (tx) => {
    const manager = tx as EntityManager;
    const [row] = await manager.execute<InvitationRow[]>(
      `update operator_invitation set accepted_at = now()
        where token_hash = ? and accepted_at is null and revoked_at is null and expires_at > now()
        returning id, tenant_id, email, name, role, invited_by_name, created_at, expires_at`,
      [hashInvitationToken(input.token)],
    );
    if (!row) throw unusableLink();
    const operator = await createOperator(manager, {
      tenantId: row.tenant_id,
      email: row.email,
      name: row.name,
      role: row.role,
      password: input.password,
    });
    await manager.nativeUpdate(OperatorInvitationSchema, { id: row.id }, { operatorId: operator.id });
    const self: OperatorPrincipal = {
      kind: 'operator',
      tenantId: row.tenant_id,
      // Invitations are tenant-wide; the environment is not recorded for them.
      environment: 'live',
      operatorId: operator.id,
      operatorName: operator.name,
      role: operator.role,
      loginId: '',
      clientAddress,
    };
    await recordOperatorAction(manager, self, {
      action: 'invitation.accepted',
      targetType: 'invitation',
      targetId: row.id,
      environment: null,
    });
    return operator;
  });
}
