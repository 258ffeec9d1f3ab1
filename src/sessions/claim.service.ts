/**
 * Raw SQL: (b) a claim is `insert … on conflict do nothing returning`, a reassignment `on conflict
 * … do update`.
 */
import { REFUSALS, requireOperator } from '../auth/authorization.js';
import { randomUUID } from 'node:crypto';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { OperatorSchema } from '../../entities/operator.entity.js';
import { SessionClaimSchema } from '../../entities/review.entity.js';
import { isUuid } from '../shared/input-rules.js';
import type { TenantPrincipal } from '../auth/context.js';
import { ApiError } from '../shared/errors.js';
import type { Services } from '../services.js';
import { loadSession } from './read.js';
import { SessionSchema, type Session } from '../../entities/session.entity.js';
import { unixSeconds } from '../shared/time.js';
import { recordOperatorAction } from '../operators/operator-audit.js';
import { claimedByOther, listClaims, type SessionClaim } from './claims.js';

export type { SessionClaim } from './claims.js';

/** Tells the consoles following the review queue (this instance's subscribers) that a case's holder changed. */
function announceClaim(services: Services, session: Session, holder: string | null): void {
  services.live.publish({
    id: randomUUID(),
    seq: 0,
    tenantId: session.tenant.id,
    environment: session.environment,
    sessionId: session.id,
    workflowId: session.workflow.id,
    vendorData: session.vendorData,
    status: session.status,
    previousStatus: session.status,
    actor: 'claim',
    reason: holder,
    changedAt: unixSeconds(new Date()),
    claimChange: true,
  });
}

/** The refusal of a claim on a case that is not (or no longer) in review. */
function notInReview(status: string): ApiError {
  return new ApiError('invalid_transition', `The session is ${status}: only cases in review are claimed.`);
}

/** An in-review session of the caller's scope (404 outside it, 409 when it is not in review). */
async function inReviewSession(em: EntityManager, services: Services, principal: TenantPrincipal, sessionId: string): Promise<Session> {
  const session = await loadSession(em, services, principal, sessionId);
  if (session.status !== 'in_review') throw notInReview(session.status);
  return session;
}

/** Locks the session row in the transaction, as a review does, so a claim and a decision never interleave. */
async function lockInReview(tx: EntityManager, sessionId: string): Promise<void> {
  // Read past the identity map: the session was loaded before the transaction, and its status may have moved since.
  const row = await tx.findOne(
    SessionSchema,
    { id: sessionId },
    { fields: ['status'], lockMode: LockMode.PESSIMISTIC_WRITE, disableIdentityMap: true },
  );
  if (row?.status !== 'in_review') throw notInReview(row?.status ?? 'gone');
}

/**
 * Claims an in-review case for the signed-in reviewer or admin. Claiming one's own case again is a
 * no-op; a case someone else holds is refused with `session_claimed` (one conditional insert, so
 * two reviewers claiming at once cannot both win).
 */
export async function claimSession(
  em: EntityManager,
  services: Services,
  principal: TenantPrincipal,
  sessionId: string,
): Promise<SessionClaim> {
  const operator = requireOperator(principal, REFUSALS.claim);
  const session = await inReviewSession(em, services, principal, sessionId);
  const claim = await em.transactional(async (tx) => {
    await lockInReview(tx as EntityManager, session.id);
    const inserted = await tx.execute<{ session_id: string }[]>(
      `insert into session_claim (session_id, tenant_id, operator_id, claimed_at) values (?, ?, ?, now())
       on conflict (session_id) do nothing returning session_id`,
      [session.id, session.tenant.id, operator.operatorId],
    );
    const [held] = await listClaims(tx as EntityManager, [session.id]);
    if (held!.operatorId !== operator.operatorId) throw claimedByOther(held!.operatorName);
    if (inserted.length > 0)
      await recordOperatorAction(tx as EntityManager, operator, {
        action: 'session.claimed',
        targetType: 'session',
        targetId: session.id,
        environment: session.environment,
      });
    return { created: inserted.length > 0, held: held! };
  });
  if (claim.created) announceClaim(services, session, claim.held.operatorName);
  return claim.held;
}

/** Releases a case: its holder may, and an admin may release anyone's. Releasing an unclaimed case is a no-op. */
export async function releaseSession(em: EntityManager, services: Services, principal: TenantPrincipal, sessionId: string): Promise<void> {
  const operator = requireOperator(principal, REFUSALS.release);
  const session = await loadSession(em, services, principal, sessionId);
  const released = await em.transactional(async (tx) => {
    const [held] = await listClaims(tx as EntityManager, [session.id]);
    if (!held) return false;
    if (held.operatorId !== operator.operatorId && operator.role !== 'admin') throw claimedByOther(held.operatorName);
    await tx.nativeDelete(SessionClaimSchema, { sessionId: session.id, operator: held.operatorId });
    await recordOperatorAction(tx as EntityManager, operator, {
      action: 'session.released',
      targetType: 'session',
      targetId: session.id,
      environment: session.environment,
      details: { holder_operator_id: held.operatorId, holder_name: held.operatorName },
    });
    return true;
  });
  if (released) announceClaim(services, session, null);
}

/** An admin hands an in-review case to a reviewer or admin of the same tenant, taking it from whoever held it. */
export async function assignSession(
  em: EntityManager,
  services: Services,
  principal: TenantPrincipal,
  sessionId: string,
  operatorId: string,
): Promise<SessionClaim> {
  const operator = requireOperator(principal, REFUSALS.assign);
  if (operator.role !== 'admin') throw new ApiError('forbidden', 'Only an admin assigns cases to others.');
  const session = await inReviewSession(em, services, principal, sessionId);
  const claim = await em.transactional(async (tx) => {
    await lockInReview(tx as EntityManager, session.id);
    // Only an id's canonical spelling (lower-case) names an operator; anything else is not found, without a query.
    const wanted = String(operatorId);
    const assignee =
      isUuid(wanted) && wanted === wanted.toLowerCase()
        ? await tx.findOne(
            OperatorSchema,
            { id: wanted, tenant: operator.tenantId, disabledAt: null },
            { fields: ['id', 'role', 'name'], disableIdentityMap: true },
          )
        : null;
    if (!assignee) throw new ApiError('not_found', 'Operator not found.');
    if (assignee.role === 'viewer')
      throw new ApiError('validation_failed', 'A viewer cannot decide cases: assign a reviewer or an admin.', [
        { field: 'operatorId', code: 'invalid', message: 'the operator is a viewer' },
      ]);
    await tx.execute(
      `insert into session_claim (session_id, tenant_id, operator_id, claimed_at) values (?, ?, ?, now())
       on conflict (session_id) do update set operator_id = excluded.operator_id, claimed_at = excluded.claimed_at`,
      [session.id, session.tenant.id, assignee.id],
      'run',
    );
    await recordOperatorAction(tx as EntityManager, operator, {
      action: 'session.assigned',
      targetType: 'session',
      targetId: session.id,
      environment: session.environment,
      details: { assignee_operator_id: assignee.id, assignee_name: assignee.name },
    });
    const [held] = await listClaims(tx as EntityManager, [session.id]);
    return held!;
  });
  announceClaim(services, session, claim.operatorName);
  return claim;
}
