/**
 * A reviewer's request for a retake (issue 16): instead of approving or declining an in-review
 * session, the reviewer sends one step back to the end user. The step's result becomes
 * `resubmission_requested` (`reviewer_request`), the session goes back to `in_progress` through the
 * audited transition, and the end user's next submission of the step decides the session as usual.
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SessionNodeResultSchema, SessionSchema, type Session } from '../../entities/session.entity.js';
import { workflowOfSession } from '../workflows/revisions.js';
import { type TenantPrincipal } from '../auth/context.js';
import type { Config } from '../shared/config.js';
import { resubmissionRequested } from '../domain/events.js';
import { REVIEWER_REQUEST } from '../domain/resubmission.js';
import { NODE_TYPES, type NodeType } from '../domain/types.js';
import { validationError } from '../shared/errors.js';
import { transactionWithEvents } from '../events/outbox.js';
import { settleClaimForReview } from './claims.js';
import type { Services } from '../services.js';
import { transition } from './status-audit.js';
import { loadSession } from './read.js';
import { checkReviewerReason, type ReviewerReason } from './review.js';

/**
 * The `expires_at` a session sent back for a retake gets: unchanged when a whole session lifetime
 * (`SESSION_TTL_SECONDS`) is still ahead, else now plus that lifetime, so the end user always has
 * as long to retake the step as they had to start (a case may wait in review past `expires_at`).
 */
export function expiryForRetake(expiresAt: Date, ttlSeconds: number, now: Date = new Date()): Date {
  const renewed = new Date(now.getTime() + ttlSeconds * 1000);
  return expiresAt.getTime() >= renewed.getTime() ? expiresAt : renewed;
}

/**
 * Sends one step of an in_review session back to the end user, with the reviewer's mandatory
 * reason, in one transaction under the session's row lock: 409 `invalid_transition` unless the
 * session is in_review, 400 when the workflow has no such step, 409 `session_claimed` when another
 * operator holds the case. Emits `session.status_changed` (in_progress) and
 * `session.resubmission_requested` (the engine's retake payload plus the reason).
 */
export async function requestRetake(
  em: EntityManager,
  services: Services,
  config: Pick<Config, 'SESSION_TTL_SECONDS'>,
  principal: TenantPrincipal,
  sessionId: string,
  nodeType: NodeType,
  reason: string | ReviewerReason,
): Promise<Session> {
  if (!(NODE_TYPES as readonly string[]).includes(nodeType))
    throw validationError([{ field: 'nodeType', code: 'invalid', message: `unknown step ${String(nodeType)}` }]);
  const checked = await checkReviewerReason(
    em,
    principal,
    typeof reason === 'object' && reason !== null ? reason : { reason },
    'a retake request',
  );
  const trimmed = checked.auditText;
  await loadSession(em, services, principal, sessionId);
  return transactionWithEvents(em, services.bus, async (tx, events) => {
    const session = await tx.findOneOrFail(SessionSchema, { id: sessionId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    // Load through the transaction: on PGlite a read on another connection would wait for it forever.
    const workflow = await workflowOfSession(tx, session);
    const row = await tx.findOne(SessionNodeResultSchema, { sessionId, nodeType }, { refresh: true });
    if (!workflow.nodes.some((node) => node.type === nodeType) || !row)
      throw validationError([{ field: 'nodeType', code: 'not_in_workflow', message: `workflow ${workflow.id} has no ${nodeType} step` }]);
    const now = new Date();
    transition(tx, events, session, 'in_progress', 'reviewer', principal, trimmed);
    await settleClaimForReview(tx, principal, session.id);
    session.decidedAt = null;
    session.expiresAt = expiryForRetake(session.expiresAt, config.SESSION_TTL_SECONDS, now);
    // The person reads the code's sentence and the note (the console showed the reviewer that preview); free text stays in the audit.
    Object.assign(row, {
      status: 'resubmission_requested',
      resubmissionReason: REVIEWER_REQUEST,
      retakeReasonCode: checked.definition?.code ?? null,
      retakeNote: checked.note,
      updatedAt: now,
    });
    events.record(tx, {
      tenantId: session.tenant.id,
      environment: session.environment,
      sessionId,
      ...resubmissionRequested(
        { id: sessionId, workflowId: workflow.id, vendorData: session.vendorData },
        {
          nodeType,
          resubmissionReason: REVIEWER_REQUEST,
          attempts: row.attempts,
          maxAttempts: workflow.maxAttempts,
          reviewer: { note: trimmed, reasonCode: checked.definition?.code ?? null },
        },
      ),
    });
    await tx.flush();
    return session;
  });
}
