/** Decisions by people and by monitoring: a review of an in-review session, and monitoring sending an approved session back to review. */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SessionSchema, type Session } from '../../entities/session.entity.js';
import { workflowOfSession } from '../workflows/revisions.js';
import { type TenantPrincipal } from '../auth/context.js';
import { approve } from './approval.js';
import { validationError } from '../shared/errors.js';
import { transactionWithEvents, type EventBus } from '../events/outbox.js';
import type { Services } from '../services.js';
import { revokeTokens } from './service-tokens.js';
import { settleClaimForReview } from './claims.js';
import { assignOnReviewEntry } from '../operators/assignment.js';
import { transition } from './status-audit.js';
import { loadSession } from './read.js';
import type { ReasonDefinition } from '../domain/reasons.js';
import type { StoredReason } from '../../entities/session.entity.js';
import { requireReasonCode } from '../reasons/reason-codes.service.js';
import { assertNoSanctionsTrueMatch } from './aml-dispositions.js';

/** A reviewer's verdict on an in-review session. */
export type ReviewDecision = 'approved' | 'declined';

/** Longest optional note a reviewer adds to a reason code. */
export const REVIEW_NOTE_MAX = 2000;

/** What a reviewer gives with a decision or a retake: free text (the original API), a catalogue code with an optional note, or both. */
export interface ReviewerReason {
  /** Free text for the audit trail (kept as the API always took it). */
  reason?: string | null;
  /** A code of the reason catalogue or of the tenant's own (GET /v1/reason-codes). */
  reasonCode?: string | null;
  /** An optional note beside the code. */
  note?: string | null;
}

/** A reviewer's reason checked: the text the audit keeps, and the chosen code's definition. */
export interface CheckedReviewerReason {
  /** What the audit trail and the webhook's `reason` carry. */
  auditText: string;
  definition: ReasonDefinition | null;
  note: string | null;
}

/**
 * Checks a reviewer's reason: at least a free-text reason or a code (400 `required` on `reason`
 * otherwise, as before codes existed), the code known to the catalogue or the tenant (400), the
 * note within {@link REVIEW_NOTE_MAX}. The audit text is the free text, else the code and note.
 */
export async function checkReviewerReason(
  em: EntityManager,
  principal: TenantPrincipal,
  given: ReviewerReason,
  what: string,
): Promise<CheckedReviewerReason> {
  const text = typeof given.reason === 'string' ? given.reason.trim() : '';
  const code = typeof given.reasonCode === 'string' ? given.reasonCode.trim() : '';
  const note = typeof given.note === 'string' && given.note.trim() ? given.note.trim() : null;
  if (!text && !code)
    throw validationError([
      { field: 'reason', code: 'required', message: `${what} needs a reason (reason, or reason_code from GET /v1/reason-codes)` },
    ]);
  if (note && note.length > REVIEW_NOTE_MAX)
    throw validationError([{ field: 'note', code: 'too_long', message: `note must be at most ${REVIEW_NOTE_MAX} characters` }]);
  const definition = code ? await requireReasonCode(em, principal, code, 'reason_code') : null;
  const auditText = text || [`${code}: ${definition!.reviewer}`, note].filter(Boolean).join(' — ');
  return { auditText, definition, note };
}

/** Decides an in_review session by hand, with a mandatory reason, audited with the reviewer's key or the operator's name. */
export async function reviewSession(
  em: EntityManager,
  services: Services,
  principal: TenantPrincipal,
  sessionId: string,
  decision: ReviewDecision,
  reason: string | ReviewerReason,
): Promise<Session> {
  if (decision !== 'approved' && decision !== 'declined') {
    throw validationError([{ field: 'decision', code: 'invalid', message: 'decision must be approved or declined' }]);
  }
  const checked = await checkReviewerReason(em, principal, typeof reason === 'object' && reason !== null ? reason : { reason }, 'a review');
  await loadSession(em, services, principal, sessionId);
  return transactionWithEvents(em, services.bus, async (tx, events) => {
    const session = await tx.findOneOrFail(SessionSchema, { id: sessionId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (decision === 'approved' && session.status === 'in_review') await assertNoSanctionsTrueMatch(tx, session.id);
    transition(tx, events, session, decision, 'reviewer', principal, checked.auditText);
    // A decline with a catalogue code says why first: the decision, the person's screen and the overview read it.
    if (checked.definition && decision === 'declined') session.reasons = [reviewerReason(checked), ...session.reasons];
    await settleClaimForReview(tx, principal, session.id);
    session.decidedAt = new Date();
    if (decision === 'approved') {
      // Load through the transaction: on PGlite a read on another connection would wait for it forever.
      await approve(tx, services, session, await workflowOfSession(tx, session));
    }
    await tx.flush();
    return session;
  });
}

/** The decision reason of a reviewer's coded decline, keeping the code's category and retryable (a tenant code may go away later). */
function reviewerReason(checked: CheckedReviewerReason): StoredReason {
  const definition = checked.definition!;
  return {
    code: 'reviewer_decision',
    message: checked.note ?? definition.reviewer,
    cause: definition.code,
    category: definition.category,
    severity: definition.severity,
    retryable: definition.retryable,
    endUserMessage: definition.endUser,
    reviewerText: definition.reviewer,
  };
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
  /** Writes more in the same transaction once the session is reopened (monitoring adds the new hits to its AML result). */
  alongside?: (tx: EntityManager) => Promise<void>,
): Promise<boolean> {
  return transactionWithEvents(em, bus, async (tx, events) => {
    const session = await tx.findOne(SessionSchema, { id: sessionId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (!session || session.status !== 'approved') return false;
    await alongside?.(tx);
    transition(tx, events, session, 'in_review', 'monitoring', null, reason.message);
    session.complianceLevel = null;
    session.reasons = [...session.reasons, { code: reason.code, message: reason.message, nodeType: 'aml_screening' }];
    await revokeTokens(tx, events, { sessionId, vendorData: session.vendorData }, reason.message);
    await assignOnReviewEntry(tx, { id: session.id, tenantId: session.tenant.id, environment: session.environment });
    await tx.flush();
    return true;
  });
}
