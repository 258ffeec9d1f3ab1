/**
 * Document re-capture: an ID document photographed from a screen or from a printed copy rather than
 * held to the camera. Same image evidence as the selfie's PAD (src/engines/recapture-evidence.ts),
 * over the whole image since a document has no face to centre on: `periodic_pattern`, a screen's
 * pixel grid or scanlines, a copier's halftone, and their moiré. Not used: straight frame edges (a
 * real card on a table has them too) and the black level (genuine specimens of the development set
 * measure 0 to 110, so it does not separate). The finding is a review
 * signal (`document_recapture`), never a failure: documents carry fine periodic security printing
 * (guilloches), so the evidence is weaker than on a face (figures in docs/fraud.md).
 */
import type { NodeResult } from '../../domain/types.js';
import type { CheckOutcome, DocumentVerificationDetails } from '../details.js';
import { cameraMetadata, decodeUpright, periodicPeak, type EvidenceSignal, type Rgb } from '../recapture-evidence.js';

/** Longest side the document image is analysed at, in pixels (as the face engine's analysis). */
export const MAX_DOCUMENT_ANALYSIS_SIDE_PX = 1280;
/** Periodic-peak prominence from which a document image is flagged (genuine specimens of the development set stay below). */
export const DOCUMENT_PERIODIC_FLAG_FROM = 3.5;

/** One named re-capture signal of a document image (never `failed`: the finding is a review signal). */
export type RecaptureSignal = EvidenceSignal<'periodic_pattern' | 'camera_metadata'>;

/** The re-capture finding of a document image, as `details.recapture`. */
export type RecaptureFinding = {
  /** `review` when any counted signal warns (the node gets the `document_recapture` warning). */
  outcome: Extract<CheckOutcome, 'passed' | 'review'>;
  /** Every signal. */
  signals: RecaptureSignal[];
};

/** Measures and judges the re-capture evidence of a document image. */
export async function detectRecapture(bytes: Buffer): Promise<RecaptureFinding> {
  const image: Rgb = await decodeUpright(bytes, MAX_DOCUMENT_ANALYSIS_SIDE_PX);
  const whole: [number, number, number, number] = [0, 0, image.width, image.height];
  const peak = periodicPeak(image, whole);
  const metadata = await cameraMetadata(bytes);
  const signals: RecaptureSignal[] = [
    {
      name: 'periodic_pattern',
      outcome: peak >= DOCUMENT_PERIODIC_FLAG_FROM ? 'warning' : 'passed',
      value: peak,
      limit: DOCUMENT_PERIODIC_FLAG_FROM,
      meaning: 'A regular pattern over the document (screen pixels or scanlines, copier dots, moiré).',
    },
    {
      name: 'camera_metadata',
      outcome: metadata.camera || metadata.captureTime ? 'passed' : 'warning',
      value: metadata.camera || metadata.captureTime,
      limit: null,
      meaning: 'Whether the file carries the camera make, model or capture time a camera writes (reported, not counted).',
    },
  ];
  const flagged = signals.some((signal) => signal.name !== 'camera_metadata' && signal.outcome === 'warning');
  return { outcome: flagged ? 'review' : 'passed', signals };
}

/**
 * The document step's result with the re-capture finding of its front image: always in the details;
 * a flagged image adds the `document_recapture` warning and turns a pass into a review (a human
 * looks; the evidence is not strong enough to fail on). A result that read nothing (an unusable
 * photo) is returned unchanged.
 */
export async function withRecapture<T extends Omit<NodeResult, 'required' | 'provider'> & { details: DocumentVerificationDetails }>(
  result: T,
  front: Buffer,
): Promise<T> {
  if (result.details.resultCode === 'image_too_small' || result.details.resultCode === 'image_blurry') return result;
  const recapture = await detectRecapture(front);
  if (recapture.outcome !== 'review') return { ...result, details: { ...result.details, recapture } };
  const found = recapture.signals.filter((signal) => signal.name !== 'camera_metadata' && signal.outcome === 'warning');
  return {
    ...result,
    status: result.status === 'passed' ? 'review' : result.status,
    warnings: [
      ...result.warnings,
      {
        code: 'document_recapture',
        field: 'image_front',
        message: `The document looks photographed from a screen or a printed copy: ${found.map((signal) => signal.meaning).join(' ')}`,
      },
    ],
    details: { ...result.details, recapture },
  };
}
