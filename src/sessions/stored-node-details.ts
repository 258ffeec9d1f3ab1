/**
 * A session's node results as the session keeps them (docs/design.md, "Engine output: one flip,
 * where a result is kept"): each engine's details in the spec's snake_case (`StoredDetails`), plus
 * what the session layer writes beside them. Readers of stored results take their details through
 * {@link storedDetailsOf}, so each reads a named shape instead of guarding untyped keys.
 */
import type { NodeType } from '../domain/types.js';
import type {
  BiometricKycDetails,
  BusinessRegistryDetails,
  PhoneVerificationDetails,
  ProofOfAddressDetails,
  StoredAmlScreeningDetails,
  StoredDocumentVerificationDetails,
} from '../engines/details.js';
import type { StoredDetails } from '../engines/stored-details.js';

/** What the session layer adds to any step's details besides the engine's own fields. */
export type StepAdditions = {
  /** `camera` when every image came through the hosted flow's camera, else `upload` (src/sessions/capture-integrity.ts). */
  capture?: 'camera' | 'upload';
  /** The capture evidence: the signals raised and each image's own (src/sessions/capture-integrity.ts). */
  capture_integrity?: { signals: string[]; images: unknown[] };
  /** The list entries that gated this step (src/lists/gate.ts). */
  list_hits?: { list_id: string; list_name: string; entry_id: string; policy: string }[];
};

/** A duplicate finding, kept under its code (`duplicate_face`, `duplicate_document`, `selfie_reused`): the earlier sessions it links, by id only (src/duplicates/duplicates.ts). */
export type DuplicateFinding = {
  session_ids: string[];
  policy: 'review' | 'decline';
  /** `selfie_reused`: the very same bytes, not only a near-identical picture. */
  identical_bytes?: boolean;
  /** `duplicate_face`: the closest earlier template's similarity. */
  best_similarity?: number;
};

/** A frame of the active liveness burst as kept: its phase, when it was taken, the head pose found and its face's similarity to the selfie. */
export type ActiveLivenessFrame = {
  phase: string;
  at_ms: number;
  pose: { yaw: number; pitch: number } | null;
  similarity: number | null;
};

/** The active liveness check's record on a face step (src/sessions/active-liveness.ts). */
export type ActiveLivenessRecord = {
  result: 'passed' | 'alternative' | 'failed';
  /** The challenge's head turns, in the order asked. */
  moves?: string[];
  /** Why it failed (`no_left_turn`, `challenge_expired`, …). */
  reasons?: string[];
  frames?: ActiveLivenessFrame[];
  /** Time from the challenge's issue to the answer. */
  challenge_age_ms?: number;
};

/** The stored details of each node type: the engine's, in snake_case, with the session layer's additions. */
export type StoredNodeDetails = {
  document_verification: StoredDocumentVerificationDetails & StepAdditions & { duplicate_document?: DuplicateFinding };
  biometric_kyc: StoredDetails<BiometricKycDetails> &
    StepAdditions & { active_liveness?: ActiveLivenessRecord; duplicate_face?: DuplicateFinding; selfie_reused?: DuplicateFinding };
  aml_screening: StoredAmlScreeningDetails & StepAdditions;
  /** While the step waits for its code, only `phone` and `code_requested_at` (Unix seconds) are there (src/sessions/phone-step.ts). */
  phone_verification: StoredDetails<PhoneVerificationDetails> & StepAdditions & { code_requested_at?: number };
  proof_of_address: StoredDetails<ProofOfAddressDetails> & StepAdditions;
  business_registry: StoredDetails<BusinessRegistryDetails> & StepAdditions;
};

/**
 * The stored details of a node result, typed by its node type. Partial: a pending step holds
 * none or part of them, and results kept before a field existed lack it. The one place a stored
 * result's `Record<string, unknown>` is read as its shape.
 */
export function storedDetailsOf<N extends NodeType>(
  result: { details: Record<string, unknown> } | null | undefined,
  // Names the shape at the call site; the result itself carries no type.
  _nodeType: N,
): Partial<StoredNodeDetails[N]> {
  return (result?.details ?? {}) as Partial<StoredNodeDetails[N]>;
}
