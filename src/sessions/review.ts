/** Decisions by people and by monitoring: a review of an in-review session, and monitoring sending an approved session back to review. */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SessionSchema, type Session } from '../../entities/session.entity.js';
import { WorkflowSchema } from '../../entities/workflow.entity.js';
import { type TenantPrincipal } from '../auth/context.js';
import { approve } from './approval.js';
import { validationError } from '../errors.js';
import { transactionWithEvents, type EventBus } from '../events/outbox.js';
import type { Services } from '../services.js';
import { revokeTokens } from './service-tokens.js';
import { settleClaimForReview } from '../operators/claims.js';
import { transition } from './audit.js';
import { loadSession } from './read.js';

/** A reviewer's verdict on an in-review session. */
export type ReviewDecision = 'approved' | 'declined';

/** Decides an in_review session by hand, with a mandatory reason, audited with the reviewer's key or the operator's name. */
export async function reviewSession(
  em: EntityManager,
  services: Services,
  principal: TenantPrincipal,
  sessionId: string,
  decision: ReviewDecision,
  reason: string,
): Promise<Session> {
  const trimmed = typeof reason === 'string' ? reason.trim() : '';
  if (!trimmed) throw validationError([{ field: 'reason', code: 'required', message: 'a review needs a reason' }]);
  if (decision !== 'approved' && decision !== 'declined') {
    throw validationError([{ field: 'decision', code: 'invalid', message: 'decision must be approved or declined' }]);
  }
  await loadSession(em, services, principal, sessionId);
  return transactionWithEvents(em, services.bus, async (tx, events) => {
    const session = await tx.findOneOrFail(SessionSchema, { id: sessionId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    transition(tx, events, session, decision, 'reviewer', principal, trimmed);
    await settleClaimForReview(tx, principal, session.id);
    session.decidedAt = new Date();
    if (decision === 'approved') {
      // Load through the transaction: on PGlite a read on another connection would wait for it forever.
      await approve(tx, services, session, await tx.findOneOrFail(WorkflowSchema, { id: session.workflow.id }));
    }
    await tx.flush();
    return session;
  });
}

/**
 * Ongoing monitoring: sends an approved session back to review with a reason and revokes its
 * service tokens (each revocation emits `agent.revoked`). Returns false when the session is no
 * longer approved (a reviewer or another run got there first).
 */
export async function reopenApprovedSession(
  em: EntityManager,
  bus: EventBus,
  sessionId: string,
  reason: { code: string; message: string },
): Promise<boolean> {
  return transactionWithEvents(em, bus, async (tx, events) => {
    const session = await tx.findOne(SessionSchema, { id: sessionId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (!session || session.status !== 'approved') return false;
    transition(tx, events, session, 'in_review', 'monitoring', null, reason.message);
    session.complianceLevel = null;
    session.reasons = [...session.reasons, { code: reason.code, message: reason.message, nodeType: 'aml_screening' }];
    await revokeTokens(tx, events, { sessionId, vendorData: session.vendorData }, reason.message);
    await tx.flush();
    return true;
  });
}
