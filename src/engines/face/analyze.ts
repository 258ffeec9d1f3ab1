/**
 * Face analysis on still images: decode with sharp, detect with human (which also gives the
 * antispoof and liveness scores), describe the largest face with face-api as an L2-normalised
 * 128-d embedding (faceapi.ts). Comparison is the
 * cosine similarity of two embeddings, judged against the thresholds of `thresholds.ts`.
 */
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import type { CheckOutcome } from '../details.js';
import { ApiError } from '../../shared/errors.js';
import { withHuman, type HumanFace } from './human.js';
import { describeFaceAt, FACEAPI_DESCRIPTOR_LENGTH } from './faceapi.js';
import { MAX_INPUT_PIXELS as SHARED_MAX_INPUT_PIXELS } from '../data-uri.js';
import {
  FACE_MATCH_PASS_SIMILARITY,
  FACE_MATCH_REVIEW_SIMILARITY,
  LIVE_FAIL_BELOW,
  LIVE_REVIEW_BELOW,
  REAL_REVIEW_BELOW,
} from './thresholds.js';

/** Longest image side fed to the detector, in pixels; larger photos are scaled down (faces stay far above the detector's needs). */
export const MAX_ANALYSIS_SIDE_PX = 1280;
/** Largest decoded image we accept, in pixels: the one cap of every engine (data-uri.ts), so a crafted header cannot exhaust memory. */
export const MAX_INPUT_PIXELS = SHARED_MAX_INPUT_PIXELS;
/** Length of the embedding: face-api's recognition descriptor. */
export const EMBEDDING_DIMENSION = FACEAPI_DESCRIPTOR_LENGTH;

/** One analysed face. */
export interface FaceAnalysis {
  /** How many faces the image holds (at or above the detector's confidence). */
  faces: number;
  /** face-api embedding of the chosen face, L2-normalised (length `EMBEDDING_DIMENSION`). */
  embedding: number[];
  /** `[x, y, width, height]` of the chosen face, in pixels of the analysed (possibly downscaled) image. */
  box: [number, number, number, number];
  /** Detection confidence, 0–1. */
  score: number;
  /** Antispoof score, 0 (printed or replayed) to 1 (real); null when the model gave none. */
  real: number | null;
  /** Liveness score, 0 (static reproduction) to 1 (live); null when the model gave none. */
  live: number | null;
  /** face-api's 68 landmarks of the face, in pixels of its crop: the head pose (head-pose.ts). */
  landmarks: { x: number; y: number }[];
}

/** Options of `analyzeFace`. */
export interface AnalyzeFaceOptions {
  /**
   * Request field the image came from, named in 400 errors.
   * @default 'image'
   */
  field?: string;
  /**
   * `only`: exactly one face or a 400 (selfies, list entries: docs/design.md "Smaller decisions").
   * `largest`: the largest face wins (ID documents often print a second, smaller "ghost" portrait).
   * @default 'only'
   */
  pick?: 'only' | 'largest';
}

function imageError(field: string, code: string, message: string): ApiError {
  return new ApiError('validation_failed', message, [{ field, code, message }]);
}

/** Decodes any image sharp reads into upright RGB pixels no larger than `MAX_ANALYSIS_SIDE_PX` (exported for benchmarks that run the pipeline's parts apart). */
export async function decodeRgb(bytes: Buffer, field: string): Promise<{ pixels: Uint8Array; width: number; height: number }> {
  try {
    const { data, info } = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS })
      .rotate() // honour EXIF orientation: phone selfies are often stored sideways
      .resize({ width: MAX_ANALYSIS_SIDE_PX, height: MAX_ANALYSIS_SIDE_PX, fit: 'inside', withoutEnlargement: true })
      .removeAlpha()
      .toColorspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3) throw new Error(`expected 3 channels, got ${info.channels}`);
    return { pixels: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
  } catch {
    throw imageError(field, 'unreadable_image', `${field} is not an image we can decode`);
  }
}

/**
 * How long a detection is kept for another analysis of the same image bytes, in milliseconds: a
 * live session's selfie is analysed by the face engine and again by the list gate's template
 * observer in the same request. Only results are kept (keyed by SHA-256), never the image.
 */
export const DETECTION_REUSE_MS = 60_000;
/** Most detections kept for reuse at once. */
export const DETECTION_REUSE_MAX = 16;

/** Recent detections by SHA-256 of the image bytes, oldest first. */
const recentDetections = new Map<string, { at: number; faces: Promise<HumanFace[]> }>();
/** Detections run and reused since start, for tests and diagnostics. */
const detectionCounts = { run: 0, reused: 0 };

/** How many detections ran and how many were served from {@link DETECTION_REUSE_MS} reuse. */
export function detectionStats(): { run: number; reused: number } {
  return { ...detectionCounts };
}

/**
 * Every face human finds in the image, largest first, the largest with its face-api embedding
 * (none when face-api finds no face there: too small or cut off). Throws a 400 naming `field` when the bytes
 * are not an image. The same bytes analysed again within {@link DETECTION_REUSE_MS} reuse the result.
 */
export async function detectFaces(bytes: Buffer, field = 'image'): Promise<HumanFace[]> {
  const now = Date.now();
  for (const [key, entry] of recentDetections) {
    if (now - entry.at <= DETECTION_REUSE_MS && recentDetections.size < DETECTION_REUSE_MAX) break;
    recentDetections.delete(key);
  }
  const key = createHash('sha256').update(bytes).digest('hex');
  let entry = recentDetections.get(key);
  if (entry) {
    detectionCounts.reused += 1;
  } else {
    detectionCounts.run += 1;
    const created = { at: now, faces: detectUncached(bytes, field) };
    entry = created;
    recentDetections.set(key, created);
    // A failure is not kept: the next call decodes again and names its own field.
    created.faces.catch(() => {
      if (recentDetections.get(key) === created) recentDetections.delete(key);
    });
  }
  return [...(await entry.faces)];
}

/** {@link detectFaces} without reuse. */
async function detectUncached(bytes: Buffer, field: string): Promise<HumanFace[]> {
  const { pixels, width, height } = await decodeRgb(bytes, field);
  return withHuman(async (human) => {
    const input = human.tf.tensor3d(pixels, [height, width, 3], 'int32');
    try {
      const result = await human.detect(input);
      if (result.error) throw new Error(`face detection failed: ${result.error}`);
      const faces = [...result.face].sort((a, b) => b.box[2] * b.box[3] - a.box[2] * a.box[3]);
      if (faces[0]) {
        // Only the largest face is ever compared (pick 'only' refuses more than one; 'largest' takes it).
        const described = await describeFaceAt(human.tf, input, { width, height }, faces[0].box);
        faces[0] = { ...faces[0], embedding: described?.descriptor, landmarks: described?.landmarks };
      }
      return faces;
    } finally {
      input.dispose();
    }
  });
}

/** Scales a vector to unit length, so cosine similarity is a dot product. */
export function l2Normalize(vector: ArrayLike<number>): number[] {
  let sumOfSquares = 0;
  for (let i = 0; i < vector.length; i++) sumOfSquares += vector[i] * vector[i];
  const norm = Math.sqrt(sumOfSquares);
  if (norm === 0) throw new Error('cannot normalise a zero vector');
  return Array.from(vector, (value) => value / norm);
}

/**
 * Detects and describes the face of an image. Zero faces, or more than one with `pick: 'only'`,
 * is a 400 `validation_failed` naming the field (`no_face` / `multiple_faces`).
 */
export async function analyzeFace(bytes: Buffer, options: AnalyzeFaceOptions = {}): Promise<FaceAnalysis> {
  const field = options.field ?? 'image';
  const faces = await detectFaces(bytes, field);
  if (faces.length === 0) throw imageError(field, 'no_face', `${field} shows no detectable face`);
  if (faces.length > 1 && (options.pick ?? 'only') === 'only') {
    throw imageError(field, 'multiple_faces', `${field} shows ${faces.length} faces; exactly one is required`);
  }
  const face = faces[0];
  if (!face.embedding || face.embedding.length !== EMBEDDING_DIMENSION) {
    // The detector saw a face the description model could not describe (too small or cut off).
    throw imageError(field, 'no_face', `${field} shows no face clear enough to compare`);
  }
  return {
    faces: faces.length,
    embedding: l2Normalize(face.embedding),
    box: [...face.box],
    score: face.score,
    real: typeof face.real === 'number' ? face.real : null,
    live: typeof face.live === 'number' ? face.live : null,
    landmarks: face.landmarks ?? [],
  };
}

/** Cosine similarity of two embeddings or templates, −1 to 1 (same length required). */
export function similarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`vectors differ in length: ${a.length} vs ${b.length}`);
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    normA += a[i] * a[i];
    normB += b[i] * b[i];
  }
  if (normA === 0 || normB === 0) return 0;
  return dot / Math.sqrt(normA * normB);
}

/** The face-match check for a similarity: passed, review (grey zone) or failed. */
export function faceMatchOutcome(cosine: number): CheckOutcome {
  if (cosine >= FACE_MATCH_PASS_SIMILARITY) return 'passed';
  if (cosine >= FACE_MATCH_REVIEW_SIMILARITY) return 'review';
  return 'failed';
}

/**
 * The liveness check of a selfie from the two presentation-attack models: it fails only when
 * both take the face for a reproduction (a very low liveness score and a low antispoof score, or
 * no antispoof score); a low score from either one asks for review. Each model alone scores some
 * genuine photos low (liveness: retouched studio portraits; antispoof: recompressed photos,
 * docs/face.md), so neither decides a failure on its own. Skipped when neither answered.
 */
export function livenessOutcome(analysis: Pick<FaceAnalysis, 'real' | 'live'>): CheckOutcome {
  if (analysis.live === null && analysis.real === null) return 'skipped';
  const realLow = analysis.real === null || analysis.real < REAL_REVIEW_BELOW;
  if (analysis.live !== null && analysis.live < LIVE_FAIL_BELOW && realLow) return 'failed';
  if (analysis.live !== null && analysis.live < LIVE_REVIEW_BELOW) return 'review';
  if (analysis.real !== null && analysis.real < REAL_REVIEW_BELOW) return 'review';
  return 'passed';
}

/** Result of comparing a selfie with a document portrait. */
export interface FaceComparison {
  /** Cosine similarity of the two embeddings, −1 to 1. */
  similarity: number;
  /** `faceMatchOutcome(similarity)`. */
  faceMatch: CheckOutcome;
  /** `livenessOutcome` of the selfie (the portrait is a print by nature, so only the selfie is judged). */
  liveness: CheckOutcome;
  /** The selfie's analysis. */
  selfie: FaceAnalysis;
  /** The portrait's analysis. */
  portrait: FaceAnalysis;
}

/**
 * Compares a selfie (exactly one face, field `selfie`) with a document portrait (the largest
 * face of the image, so a whole document front with its ghost portrait works too).
 */
export async function compareFaces(selfie: Buffer, portrait: Buffer): Promise<FaceComparison> {
  const selfieFace = await analyzeFace(selfie, { field: 'selfie', pick: 'only' });
  const portraitFace = await analyzeFace(portrait, { field: 'document_portrait', pick: 'largest' });
  const cosine = similarity(selfieFace.embedding, portraitFace.embedding);
  return {
    similarity: cosine,
    faceMatch: faceMatchOutcome(cosine),
    liveness: livenessOutcome(selfieFace),
    selfie: selfieFace,
    portrait: portraitFace,
  };
}
