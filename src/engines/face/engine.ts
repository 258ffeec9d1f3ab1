/**
 * Live `biometric_kyc` engine (`openkyc:face_match`): the selfie's face against the portrait
 * of the session's ID document, with the selfie's liveness. Same details shape and result
 * codes as the sandbox engine (src/engines/sandbox/biometric.ts).
 */
import type { NodeResult, NodeStatus, Warning } from '../../domain/types.js';
import { decodeDataUri } from '../data-uri.js';
import type { BiometricKycDetails, CheckOutcome } from '../details.js';
import { SELFIE_MIME_TYPES, type BiometricKycInput } from '../inputs.js';
import type { NodeEngine } from '../node-engine.js';
import { ApiError } from '../../shared/errors.js';
import { analyzeFace, EMBEDDING_DIMENSION, faceMatchOutcome, livenessOutcome, similarity, type FaceAnalysis } from './analyze.js';
import { detectPresentationAttack, type PadFinding } from './pad.js';
import { portraitReplayResult, portraitReplaySignal } from './portrait-replay.js';
import { alignedCrop, cropCorrelation } from './aligned-crop.js';
import { MAX_ANALYSIS_SIDE_PX } from './analyze.js';
import { decodeUpright } from '../recapture-evidence.js';

/** Provider name of the live face engine (src/domain/workflow.ts). */
export const LIVE_FACE_PROVIDER = 'openkyc:face_match';

/** Node status and result code from the two checks and the PAD finding: any failure fails, any doubt is a review. */
function verdict(faceMatch: CheckOutcome, liveness: CheckOutcome, pad: PadFinding): { status: NodeStatus; resultCode: string } {
  if (pad.outcome === 'failed') return { status: 'failed', resultCode: 'presentation_attack' };
  if (liveness === 'failed') return { status: 'failed', resultCode: 'liveness_failed' };
  if (faceMatch === 'failed') return { status: 'failed', resultCode: 'face_mismatch' };
  if (faceMatch === 'review') return { status: 'review', resultCode: 'face_match_inconclusive' };
  if (liveness === 'review') return { status: 'review', resultCode: 'liveness_inconclusive' };
  return { status: 'passed', resultCode: 'clear' };
}

/** Rounds a similarity for the details, clamped to the 0–1 range the details promise. */
function reportedSimilarity(cosine: number): number {
  return Math.round(Math.min(1, Math.max(0, cosine)) * 1000) / 1000;
}

/** The node's warning for a presentation attack, naming the signals that found it in plain words. */
function padWarning(pad: PadFinding): Warning {
  const found = pad.signals.filter((signal) => signal.name !== 'camera_metadata' && signal.outcome !== 'passed');
  return {
    code: 'presentation_attack',
    message: `The selfie looks like a photo of a photo or a screen: ${found.map((signal) => signal.meaning).join(' ')}`,
  };
}

/**
 * A review result for when there is no usable portrait: the selfie cannot be judged automatically,
 * unless it is a presentation attack, which fails whatever the portrait.
 */
function portraitReview(resultCode: string, message: string, pad: PadFinding): Omit<NodeResult, 'required'> {
  if (pad.outcome === 'failed') {
    const details: BiometricKycDetails = {
      resultCode: 'presentation_attack',
      checks: { liveness: 'failed', faceMatch: 'skipped' },
      similarity: 0,
      presentationAttack: pad,
    };
    return { status: 'failed', provider: LIVE_FACE_PROVIDER, warnings: [padWarning(pad)], details };
  }
  const details: BiometricKycDetails = {
    resultCode,
    checks: { liveness: 'skipped', faceMatch: 'skipped' },
    similarity: 0,
    presentationAttack: pad,
  };
  return { status: 'review', provider: LIVE_FACE_PROVIDER, warnings: [{ code: resultCode, message }], details };
}

/** The portrait's face and its aligned crop, or null when the document image shows none (not the selfie sender's input error). */
async function portraitFace(portrait: Buffer): Promise<(FaceAnalysis & { crop: number[] | null }) | null> {
  try {
    const face = await analyzeFace(portrait, { field: 'document_portrait', pick: 'largest' });
    return { ...face, crop: alignedCrop(await decodeUpright(portrait, MAX_ANALYSIS_SIDE_PX), face) };
  } catch (error) {
    if (error instanceof ApiError) return null;
    throw error;
  }
}

/**
 * The live face engine. The selfie must show exactly one face (else a 400 on `selfie`). The
 * document portrait comes from `EngineContext.documentPortrait` (its largest face is used);
 * without one, or when it shows no face, the node goes to review.
 */
export const liveFaceEngine: NodeEngine<BiometricKycInput> = {
  provider: LIVE_FACE_PROVIDER,
  nodeType: 'biometric_kyc',
  async run(input, context) {
    const selfie = decodeDataUri(input.selfie, 'selfie', SELFIE_MIME_TYPES);
    const selfieFace = await analyzeFace(selfie.bytes, { field: 'selfie', pick: 'only' });
    const decoded = await decodeUpright(selfie.bytes, MAX_ANALYSIS_SIDE_PX);
    const pad = await detectPresentationAttack(selfie.bytes, selfieFace, decoded);
    // A portrait embedding stored by the previous face model (a session in progress across the
    // upgrade, docs/face.md) cannot be compared with this one's: the portrait counts as missing.
    let portraitEmbedding =
      context.documentPortraitEmbedding?.length === EMBEDDING_DIMENSION ? context.documentPortraitEmbedding : undefined;
    let portraitCrop = portraitEmbedding ? context.documentPortraitCrop : undefined;
    if (!portraitEmbedding && context.documentPortrait) {
      const portrait = await portraitFace(context.documentPortrait);
      if (!portrait)
        return portraitReview('document_portrait_unusable', 'The ID document shows no face clear enough to compare with the selfie.', pad);
      portraitEmbedding = portrait.embedding;
      portraitCrop = portrait.crop ?? undefined;
    }
    if (!portraitEmbedding)
      return portraitReview(
        'document_portrait_missing',
        'No document portrait to compare the selfie with: verify the ID document first.',
        pad,
      );
    const cosine = similarity(selfieFace.embedding, portraitEmbedding);
    const faceMatch = faceMatchOutcome(cosine);
    const liveness = pad.outcome === 'failed' ? 'failed' : livenessOutcome(selfieFace);
    const selfieCrop = portraitCrop ? alignedCrop(decoded, selfieFace) : null;
    const correlation = selfieCrop && portraitCrop ? cropCorrelation(selfieCrop, portraitCrop) : null;
    const replaySignal = portraitReplaySignal(cosine, correlation);
    if (replaySignal) {
      const replay = portraitReplayResult(liveness, reportedSimilarity(cosine), replaySignal, correlation);
      return {
        status: replay.status,
        provider: LIVE_FACE_PROVIDER,
        warnings: [],
        details: { ...replay.details, presentationAttack: pad },
      };
    }
    const { status, resultCode } = verdict(faceMatch, liveness, pad);
    const details: BiometricKycDetails = {
      resultCode,
      checks: { liveness, faceMatch },
      similarity: reportedSimilarity(cosine),
      presentationAttack: pad,
    };
    return { status, provider: LIVE_FACE_PROVIDER, warnings: pad.outcome === 'failed' ? [padWarning(pad)] : [], details };
  },
};
