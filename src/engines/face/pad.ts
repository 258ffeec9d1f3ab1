/**
 * Passive presentation-attack detection (PAD) of a selfie: is the camera looking at a person, or
 * at a printed photo, a photo on a screen or a cut-out? The two small models of human (antispoof,
 * liveness) cannot tell a photo of a photo (docs/fraud.md), so their scores are combined with image
 * evidence of the medium (src/engines/recapture-evidence.ts) and with a model trained on real
 * re-captures (pad-model.ts). Every signal is a named check in the node's details with its
 * measured value and limit, so a reviewer sees why.
 *
 * Decision: a signal is `failed` (strong evidence on its own), `warning` (weak evidence) or
 * `passed`. The selfie is a presentation attack when any signal failed or when
 * `PAD_WARNINGS_TO_FAIL` signals warn together. Limits were set on the development attack set's
 * calibration variant (bench/attacks, variant A) with every genuine photo of ../shared/realdata/face
 * clear of them, then measured on variant B; the re-capture model's limits sit under every genuine
 * photo of the wider genuine set (figures in docs/fraud.md).
 */
import type { CheckOutcome } from '../details.js';
import {
  cameraMetadata,
  decodeUpright,
  frameSides,
  grow,
  periodicPeak,
  rimEvidence,
  SPECTRUM_TILE_PX,
  tone,
  type Box,
  type EvidenceSignal,
  type FrameEvidence,
  type Rgb,
} from '../recapture-evidence.js';
import { MAX_ANALYSIS_SIDE_PX, type FaceAnalysis } from './analyze.js';
import { recaptureModelScore } from './pad-model.js';
import { LIVE_FAIL_BELOW, REAL_REVIEW_BELOW } from './thresholds.js';

/** How far around the face the spectrum is measured: twice the face box, so a print's or screen's texture beside the face counts too. */
export const PAD_REGION_GROWTH = 2;
/** Periodic-peak prominence (log power) from which a pattern is strong evidence; genuine photos of the development set reach 2.1 once the JPEG grid is skipped. */
export const PERIODIC_FAIL_FROM = 3;
/** Periodic-peak prominence from which a pattern is weak evidence. */
export const PERIODIC_WARN_FROM = 2;
/** How far around the face the face-local spectrum is measured: the face itself, where skin has no texture of its own at this scale and any periodic pattern is the medium's. */
export const PAD_FACE_REGION_GROWTH = 1.2;
/** Fewest spectrum tiles the face-local pattern is averaged over; a smaller face (under about 80 px at the analysis size) is not measured there (value 0). */
export const FACE_PERIODIC_MIN_TILES = 4;
/** Face-local periodic-peak prominence from which a pattern is strong evidence (genuine photos of the development set: 1.24 at most). */
export const FACE_PERIODIC_FAIL_FROM = 2.5;
/** Face-local periodic-peak prominence from which a pattern is weak evidence. */
export const FACE_PERIODIC_WARN_FROM = 1.8;
/** Share of rays from the face crossing a closed thin paper ridge from which a cut-out's rim is strong evidence (genuine photos of the development set: 0.29 at most). */
export const RIM_FAIL_FROM = 0.6;
/** Share of rays from which a rim is weak evidence. */
export const RIM_WARN_FROM = 0.35;
/** Face-local prominence below which a pattern around the face is the scene's, not the medium's: a print or screen that carries the face carries its pattern over the face too (every attack of the development sets with a pattern around the face measured 2.2 or more on it), while a banner, a fabric or a screen behind a real person leaves the face clear (genuine photos: 1.24 at most, docs/fraud.md). Applies only where the face was large enough to be measured. */
export const SCENE_PATTERN_FACE_BELOW = 1.5;
/** Sides of the face with a straight frame edge from which a paper or bezel frame is strong evidence (genuine photos of the development set: none). */
export const FRAME_FAIL_SIDES = 2;
/** Skin red–blue margin below which the face's colour is weak evidence of a screen's or ink's cast (genuine photos of realdata/face: 0.33 and above; of the wider genuine set in docs/fraud.md: 0.194 and above, 4 of 134 below). */
export const SKIN_MARGIN_WARN_BELOW = 0.25;
/** Skin red–blue margin below which the cast is strong evidence on its own: under the lowest of the 134 genuine photos measured (0.194) with margin; a tablet re-captured by a real camera measured 0.118 (docs/fraud.md). */
export const SKIN_MARGIN_FAIL_BELOW = 0.15;
/** Black level (2nd luminance percentile around the face) above which the tone range is weak evidence of a print or a screen (genuine photos: 29 at most). */
export const BLACK_LEVEL_WARN_ABOVE = 40;
/**
 * Score of the re-capture model (pad-model.ts) below which the face is strong evidence of a
 * reproduction on its own: under the lowest of the 148 genuine photos of docs/fraud.md (0.076)
 * with margin; the two real re-captures there (a poster print and a tablet) read 0.025 and 0.045.
 */
export const RECAPTURE_MODEL_FAIL_BELOW = 0.05;
/** Score of the re-capture model below which the face is weak evidence (5 of the 148 genuine photos read 0.076–0.146, none with a second signal). */
export const RECAPTURE_MODEL_WARN_BELOW = 0.15;
/** Weak signals that together make a presentation attack. */
export const PAD_WARNINGS_TO_FAIL = 2;

/** Names of the PAD signals, as the details list them. */
export const PAD_SIGNALS = [
  'periodic_pattern',
  'face_periodic_pattern',
  'frame_edge',
  'cutout_rim',
  'skin_colour',
  'black_level',
  'antispoof_model',
  'liveness_model',
  'recapture_model',
  'camera_metadata',
] as const;
/** One PAD signal name. */
export type PadSignalName = (typeof PAD_SIGNALS)[number];

/** One named signal as the node's details carry it. */
export type PadSignal = EvidenceSignal<PadSignalName>;

/** The PAD finding of a selfie, as `details.presentation_attack`. */
export type PadFinding = {
  /** `failed`: a presentation attack (the node fails with `presentation_attack`); `passed` otherwise. */
  outcome: Extract<CheckOutcome, 'passed' | 'failed'>;
  /** Every signal, in `PAD_SIGNALS` order. */
  signals: PadSignal[];
};

/** The face's measures that the decision reads (kept apart so the decision is testable on numbers). */
export interface PadMeasures {
  periodicPeak: number;
  facePeriodicPeak: number;
  frame: FrameEvidence;
  rim: number;
  skinRedMargin: number;
  blackLevel: number;
  real: number | null;
  live: number | null;
  /** The re-capture model's score (pad-model.ts), null when it was not measured (the baseline of bench/attacks.ts). */
  recaptureModel: number | null;
  cameraMetadata: boolean;
}

/** Measures every signal of `analysis`'s face in the selfie `bytes`. */
export async function measurePad(
  bytes: Buffer,
  analysis: Pick<FaceAnalysis, 'box' | 'real' | 'live'>,
  decoded?: Rgb,
): Promise<PadMeasures> {
  const image: Rgb = decoded ?? (await decodeUpright(bytes, MAX_ANALYSIS_SIDE_PX));
  const box = analysis.box as Box;
  const { skinRedMargin, blackLevel } = tone(image, box);
  const metadata = await cameraMetadata(bytes);
  return {
    periodicPeak: periodicPeak(image, grow(box, PAD_REGION_GROWTH, image.width, image.height)),
    facePeriodicPeak: periodicPeak(
      image,
      grow(box, PAD_FACE_REGION_GROWTH, image.width, image.height),
      SPECTRUM_TILE_PX,
      FACE_PERIODIC_MIN_TILES,
    ),
    frame: frameSides(image, box),
    rim: rimEvidence(image, box).closedShare,
    skinRedMargin,
    blackLevel,
    real: analysis.real,
    live: analysis.live,
    recaptureModel: await recaptureModelScore(image, box),
    cameraMetadata: metadata.camera || metadata.captureTime,
  };
}

/** Judges measured signals (see the module comment). */
export function judgePad(measures: PadMeasures): PadFinding {
  const graded = (value: number, failFrom: number, warnFrom: number): PadSignal['outcome'] =>
    value >= failFrom ? 'failed' : value >= warnFrom ? 'warning' : 'passed';
  // A pattern around a face measured clear of one belongs to the scene behind the person.
  const sceneOnly =
    measures.periodicPeak >= PERIODIC_WARN_FROM && measures.facePeriodicPeak > 0 && measures.facePeriodicPeak < SCENE_PATTERN_FACE_BELOW;
  const signals: PadSignal[] = [
    {
      name: 'periodic_pattern',
      outcome: sceneOnly ? 'passed' : graded(measures.periodicPeak, PERIODIC_FAIL_FROM, PERIODIC_WARN_FROM),
      value: measures.periodicPeak,
      limit: PERIODIC_WARN_FROM,
      meaning: sceneOnly
        ? 'A regular pattern around the face that the face itself does not carry: part of the scene (a banner, a fabric), not a print or screen showing the face.'
        : 'A regular pattern (printer dots, screen pixels or scanlines, moiré) around the face.',
    },
    {
      name: 'face_periodic_pattern',
      outcome: graded(measures.facePeriodicPeak, FACE_PERIODIC_FAIL_FROM, FACE_PERIODIC_WARN_FROM),
      value: measures.facePeriodicPeak,
      limit: FACE_PERIODIC_WARN_FROM,
      meaning: 'A regular pattern on the face itself, where skin has none: printer dots or screen pixels.',
    },
    {
      name: 'frame_edge',
      outcome: graded(measures.frame.sides, FRAME_FAIL_SIDES, 1),
      value: measures.frame.sides,
      limit: FRAME_FAIL_SIDES,
      meaning: 'Straight, unbroken edges around the face, like the border of a paper or the bezel of a screen.',
    },
    {
      name: 'cutout_rim',
      outcome: graded(measures.rim, RIM_FAIL_FROM, RIM_WARN_FROM),
      value: measures.rim,
      limit: RIM_WARN_FROM,
      meaning: 'A thin white outline of paper around the head, as a face cut out of a print keeps.',
    },
    {
      name: 'skin_colour',
      outcome:
        measures.skinRedMargin < SKIN_MARGIN_FAIL_BELOW ? 'failed' : measures.skinRedMargin < SKIN_MARGIN_WARN_BELOW ? 'warning' : 'passed',
      value: measures.skinRedMargin,
      limit: SKIN_MARGIN_WARN_BELOW,
      meaning: 'The skin has a colour cast that screens and printer inks give, not the colour of skin in light.',
    },
    {
      name: 'black_level',
      outcome: measures.blackLevel > BLACK_LEVEL_WARN_ABOVE ? 'warning' : 'passed',
      value: measures.blackLevel,
      limit: BLACK_LEVEL_WARN_ABOVE,
      meaning: 'The darkest parts are grey, as on paper or a lit screen, instead of black.',
    },
    {
      name: 'antispoof_model',
      outcome: measures.real !== null && measures.real < REAL_REVIEW_BELOW ? 'warning' : 'passed',
      value: measures.real ?? 1,
      limit: REAL_REVIEW_BELOW,
      meaning: 'The anti-spoofing model takes the face for a reproduction.',
    },
    {
      name: 'liveness_model',
      outcome: measures.live !== null && measures.live < LIVE_FAIL_BELOW ? 'warning' : 'passed',
      value: measures.live ?? 1,
      limit: LIVE_FAIL_BELOW,
      meaning: 'The liveness model takes the face for a still reproduction.',
    },
    {
      name: 'recapture_model',
      outcome:
        measures.recaptureModel === null
          ? 'passed'
          : measures.recaptureModel < RECAPTURE_MODEL_FAIL_BELOW
            ? 'failed'
            : measures.recaptureModel < RECAPTURE_MODEL_WARN_BELOW
              ? 'warning'
              : 'passed',
      value: measures.recaptureModel ?? 1,
      limit: RECAPTURE_MODEL_WARN_BELOW,
      meaning: 'A model trained on photos of printed and on-screen faces takes this face for one.',
    },
    {
      // Reported, never counted: camera captures in the hosted flow and photos passed through a
      // messaging app carry no EXIF either, so its absence does not separate (docs/fraud.md).
      name: 'camera_metadata',
      outcome: measures.cameraMetadata ? 'passed' : 'warning',
      value: measures.cameraMetadata,
      limit: null,
      meaning: 'Whether the file carries the camera make, model or capture time a camera writes.',
    },
  ];
  const counted = signals.filter((signal) => signal.name !== 'camera_metadata');
  const attack =
    counted.some((signal) => signal.outcome === 'failed') ||
    counted.filter((signal) => signal.outcome === 'warning').length >= PAD_WARNINGS_TO_FAIL;
  return { outcome: attack ? 'failed' : 'passed', signals };
}

/** Measures and judges a selfie's face: the PAD finding the face engine puts in the details (`decoded`: the upright image at the analysis size, when the caller has it). */
export async function detectPresentationAttack(
  bytes: Buffer,
  analysis: Pick<FaceAnalysis, 'box' | 'real' | 'live'>,
  decoded?: Rgb,
): Promise<PadFinding> {
  return judgePad(await measurePad(bytes, analysis, decoded));
}
