/**
 * Replays of the document as a selfie (docs/face.md "Document-portrait replays"): a selfie whose
 * face is the document's own printed portrait, cropped, photographed or shown on a screen. Two
 * genuine captures of one face rarely come as close as a copy does, by two measures: the
 * embeddings' similarity, and the correlation of the aligned face crops as images
 * (aligned-crop.ts), which catches a copy perturbed so that its embedding moves. Either above the
 * measured genuine distribution is a replay, whatever the liveness models said about it (limits in
 * docs/face.md).
 */
import type { BiometricKycDetails, CheckOutcome } from '../details.js';
import { FACE_MATCH_REVIEW_SIMILARITY, PORTRAIT_REPLAY_CROP_CORRELATION, PORTRAIT_REPLAY_SIMILARITY } from './thresholds.js';

/** Result code of a selfie that is the document's portrait (CODES.md: face node fails, category fraud). */
export const PORTRAIT_REPLAY_RESULT_CODE = 'selfie_matches_document_portrait';

/** Which measure found a replay: the embeddings (`embedding`) or the aligned crops as images (`aligned_crop`). */
export type ReplaySignal = 'embedding' | 'aligned_crop';

/**
 * The measure by which a selfie/portrait pair is a copy, not a second capture of the person, or
 * null. `cropCorrelation` (null when either crop is missing) counts only while the embeddings
 * agree at least as far as a face match under review: a copy perturbed past the face match would
 * fail the match anyway.
 */
export function portraitReplaySignal(cosine: number, cropCorrelation: number | null = null): ReplaySignal | null {
  if (cosine >= PORTRAIT_REPLAY_SIMILARITY) return 'embedding';
  if (cropCorrelation !== null && cropCorrelation >= PORTRAIT_REPLAY_CROP_CORRELATION && cosine >= FACE_MATCH_REVIEW_SIMILARITY)
    return 'aligned_crop';
  return null;
}

/** True when a selfie/portrait pair is that of a copy (see {@link portraitReplaySignal}). */
export function isPortraitReplay(cosine: number, cropCorrelation: number | null = null): boolean {
  return portraitReplaySignal(cosine, cropCorrelation) !== null;
}

/**
 * The failed face step of a replayed portrait: the face "matches" because it is the same picture,
 * so the match is reported as failed beside the similarity, and the threshold is named for reviewers.
 */
export function portraitReplayResult(
  liveness: CheckOutcome,
  similarity: number,
  signal: ReplaySignal = 'embedding',
  cropCorrelation: number | null = null,
): {
  status: 'failed';
  details: BiometricKycDetails & {
    replay: { threshold: number; signal: ReplaySignal; cropCorrelation: number | null; cropThreshold: number; reason: string };
  };
} {
  return {
    status: 'failed',
    details: {
      resultCode: PORTRAIT_REPLAY_RESULT_CODE,
      checks: { liveness, faceMatch: 'failed' },
      similarity,
      replay: {
        threshold: PORTRAIT_REPLAY_SIMILARITY,
        signal,
        cropCorrelation: cropCorrelation === null ? null : Math.round(cropCorrelation * 1000) / 1000,
        cropThreshold: PORTRAIT_REPLAY_CROP_CORRELATION,
        reason:
          signal === 'embedding'
            ? 'The selfie is a copy of the ID document portrait, not a new photo of the person.'
            : 'The selfie is a copy of the ID document portrait: the two faces are the same picture when aligned, not a new photo of the person.',
      },
    },
  };
}
