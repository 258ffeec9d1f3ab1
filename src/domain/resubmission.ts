/**
 * Retakes instead of dead ends (docs/design.md "Decisions", retakes): a node whose photo
 * could not be read waits for a new submission instead of failing, until the workflow's
 * `max_attempts` submissions have been made. Substantive results (expired, tampered, face
 * mismatch, a sanctions hit) still fail at once. Pure functions; the caller stores the outcome.
 */
import type { NodeStatus } from './types.js';

/** Result codes that mean "the photo could not be read", not "the document or person is wrong". */
export const QUALITY_RESUBMISSION_REASONS = [
  'image_blurry',
  'image_too_small',
  'mrz_not_found',
  'glare',
  'image_too_dark',
  // A head-turn challenge not followed (active-liveness.ts): the person may simply try again.
  'active_liveness_failed',
] as const;
/** The reason of a retake a reviewer asked for from the console or the API (issue 16), not an engine's. */
export const REVIEWER_REQUEST = 'reviewer_request';
/** Why a node asks for a retake: a quality code of the engine, or a reviewer's request. */
export const RESUBMISSION_REASONS = [...QUALITY_RESUBMISSION_REASONS, REVIEWER_REQUEST] as const;
/** Why a node asks for a retake. */
export type ResubmissionReason = (typeof RESUBMISSION_REASONS)[number];
/** A retake reason an engine result can carry. */
export type QualityResubmissionReason = (typeof QUALITY_RESUBMISSION_REASONS)[number];

/** Submissions a node may take by default before a quality failure becomes a failure. */
export const DEFAULT_MAX_ATTEMPTS = 3;
/** Most submissions a workflow may allow per node. */
export const MAX_ATTEMPTS_LIMIT = 10;

/** The retake reason of an engine result: a failure whose result code is a quality code, else null. */
export function resubmissionReasonOf(result: { status: NodeStatus; details: Record<string, unknown> }): QualityResubmissionReason | null {
  if (result.status !== 'failed') return null;
  const code = result.details.result_code;
  return typeof code === 'string' && (QUALITY_RESUBMISSION_REASONS as readonly string[]).includes(code)
    ? (code as QualityResubmissionReason)
    : null;
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
