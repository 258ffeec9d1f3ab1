/**
 * Retakes instead of dead ends (docs/design.md "Decisions", retakes; issue 24): a node whose
 * failure the person can fix (the reason catalogue's retryable codes: an unreadable photo, an
 * expired or wrong document, a face not clear) waits for a new submission instead of failing,
 * until the workflow's `max_attempts` submissions have been made. Final results (tampered, face
 * mismatch, a sanctions hit) still fail at once. Pure functions; the caller stores the outcome.
 */
import { isRetryable, REASON_CATALOGUE } from './reasons.js';
import type { NodeStatus } from './types.js';

/**
 * Result codes the person can fix by doing the step again (the catalogue's `retryable` codes,
 * src/domain/reasons.ts): an unreadable photo, an expired or wrong document, a face that was not
 * clear. Fraud and identity results (tampered, face mismatch, a sanctions hit) stay final.
 */
export const QUALITY_RESUBMISSION_REASONS = REASON_CATALOGUE.filter((reason) => reason.retryable && reason.code !== 'reviewer_request').map(
  (reason) => reason.code,
) as [string, ...string[]];
/** The reason of a retake a reviewer asked for from the console or the API (issue 16), not an engine's. */
export const REVIEWER_REQUEST = 'reviewer_request';
/** Why a node asks for a retake: a quality code of the engine, or a reviewer's request. */
export const RESUBMISSION_REASONS = [...QUALITY_RESUBMISSION_REASONS, REVIEWER_REQUEST] as [string, ...string[]];
/** Why a node asks for a retake: a catalogue code. */
export type ResubmissionReason = string;
/** A retake reason an engine result can carry. */
export type QualityResubmissionReason = string;

/** Submissions a node may take by default before a quality failure becomes a failure. */
export const DEFAULT_MAX_ATTEMPTS = 3;
/** Most submissions a workflow may allow per node. */
export const MAX_ATTEMPTS_LIMIT = 10;

/** The retake reason of an engine result: a failure whose result code the person can fix, else null. */
export function resubmissionReasonOf(result: { status: NodeStatus; details: Record<string, unknown> }): QualityResubmissionReason | null {
  if (result.status !== 'failed') return null;
  const code = result.details.result_code;
  return typeof code === 'string' && isRetryable(code) && code !== REVIEWER_REQUEST ? code : null;
}

/**
 * The status to store for a node's submission number `attempt` (1-based): a quality failure with
 * submissions left asks for a retake; otherwise the engine's status stands.
 */
export function statusAfterSubmission(
  result: { status: NodeStatus; details: Record<string, unknown> },
  attempt: number,
  maxAttempts: number,
): { status: NodeStatus; resubmissionReason: ResubmissionReason | null } {
  const reason = resubmissionReasonOf(result);
  if (reason && attempt < maxAttempts) return { status: 'resubmission_requested', resubmissionReason: reason };
  return { status: result.status, resubmissionReason: null };
}

/** Node statuses that still take a submission. */
export const SUBMITTABLE_NODE_STATUSES: readonly NodeStatus[] = ['pending', 'resubmission_requested'];
