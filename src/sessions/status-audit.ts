/** The audit trail of a session: each status change through the state machine, recorded with its `session.status_changed` event in the same transaction. */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SessionStatusChangeSchema, type Session } from '../../entities/session.entity.js';
import { auditIdentityOf, type Principal } from '../auth/context.js';
import { assertTransition, InvalidTransitionError, type TransitionActor } from '../domain/session-state.js';
import { statusChanged, type StatusChangeActor } from '../domain/events.js';
import { type SessionStatus } from '../domain/types.js';
import { ApiError } from '../shared/errors.js';
import { type EventBatch } from '../events/outbox.js';

/** Who changed a status, for the audit log: the state machine's actors plus creation and import. */
export type AuditActor = StatusChangeActor;

/** Records one audited status change and its `session.status_changed` event in the current transaction. */
export function recordStatusChange(
  tx: EntityManager,
  events: EventBatch,
  session: Pick<Session, 'id' | 'workflow' | 'vendorData' | 'environment'> & { tenantId: string },
  from: SessionStatus | null,
  to: SessionStatus,
  actor: AuditActor,
  /** Whose request made the change, for the audit columns; null when the service itself did. */
  by: Principal | null,
  reason: string | null,
): void {
  const at = new Date();
  const who = auditIdentityOf(by);
  tx.create(SessionStatusChangeSchema, {
    id: randomUUID(),
    sessionId: session.id,
    tenantId: session.tenantId,
    fromStatus: from,
    toStatus: to,
    actor,
    actorKeyId: who.keyId,
    actorOperatorId: who.operatorId,
    actorName: who.name,
    clientAddress: who.address,
    reason,
    createdAt: at,
  });
  events.record(tx, {
    tenantId: session.tenantId,
    environment: session.environment,
    sessionId: session.id,
    ...statusChanged(
      { id: session.id, workflowId: session.workflow.id, vendorData: session.vendorData, environment: session.environment },
      from,
      to,
      actor,
      reason,
      at,
    ),
  });
}

/** Moves a session to a new status through the state machine, auditing it; throws 409 when not allowed. */
export function transition(
  tx: EntityManager,
  events: EventBatch,
  session: Session,
  to: SessionStatus,
  actor: TransitionActor,
  by: Principal | null,
  reason: string | null = null,
): void {
  try {
    assertTransition(session.status, to, actor, reason);
  } catch (error) {
    if (error instanceof InvalidTransitionError) throw new ApiError('invalid_transition', error.message);
    throw error;
  }
  const from = session.status;
  session.status = to;
  session.updatedAt = new Date();
  if (to === 'in_review') session.reviewEnteredAt = session.updatedAt;
  recordStatusChange(tx, events, { ...session, tenantId: session.tenant.id }, from, to, actor, by, reason);
}
