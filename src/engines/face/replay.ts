/**
 * Replays of the document as a selfie (docs/face.md "Document-portrait replays"): a selfie whose
 * face is the document's own printed portrait, cropped, photographed or shown on a screen. Two
 * genuine captures of one face rarely come as close as a copy does, so a similarity above the
 * measured genuine distribution is taken for a replay, whatever the liveness models said about it
 * (the limits of that line are in docs/face.md).
 */
import type { BiometricKycDetails, CheckOutcome } from '../details.js';
import { PORTRAIT_REPLAY_SIMILARITY } from './thresholds.js';

/** Result code of a selfie that is the document's portrait (CODES.md: face node fails, category fraud). */
export const PORTRAIT_REPLAY_RESULT_CODE = 'selfie_matches_document_portrait';

/** True when a selfie/portrait similarity is that of a copy, not of a second capture of the person. */
export function isPortraitReplay(cosine: number): boolean {
  return cosine >= PORTRAIT_REPLAY_SIMILARITY;
}

/**
 * The failed face step of a replayed portrait: the face "matches" because it is the same picture,
 * so the match is reported as failed beside the similarity, and the threshold is named for reviewers.
 */
export function portraitReplayResult(
  liveness: CheckOutcome,
  similarity: number,
): { status: 'failed'; details: BiometricKycDetails & { replay: { threshold: number; reason: string } } } {
  return {
    status: 'failed',
    details: {
      result_code: PORTRAIT_REPLAY_RESULT_CODE,
      checks: { liveness, face_match: 'failed' },
      similarity,
      replay: {
        threshold: PORTRAIT_REPLAY_SIMILARITY,
        reason: 'The selfie is a copy of the ID document portrait, not a new photo of the person.',
      },
    },
  };
}
