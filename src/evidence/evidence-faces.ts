/**
 * Faces in kept evidence (issue 25, "evidence viewer"): where the face is in a selfie, and the
 * document portrait cut from the document front, so the console shows the two faces side by side
 * at the same size. The face detector gives the box in the pixels of the image it analysed (upright,
 * scaled down to `MAX_ANALYSIS_SIDE_PX`); boxes are kept as fractions of the upright image, which
 * is how a browser shows the file, whatever its size.
 */
import sharp from 'sharp';
import type { FaceAnalysis } from '../engines/face/analyze.js';
import { MAX_ANALYSIS_SIDE_PX, MAX_INPUT_PIXELS } from '../engines/face/analyze.js';
import { analyzeFaceOffThread } from '../engines/pool/executor.js';
import { isClientError } from '../shared/errors.js';
import type { Services } from '../services.js';

/** A face's box as fractions (0–1) of the upright image's width and height. */
export interface FaceBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The portrait cut around the face: this many face widths wide and face heights tall (a passport photo's framing). */
const PORTRAIT_WIDTH_FACES = 1.4;
const PORTRAIT_HEIGHT_FACES = 1.75;
/** Shortest side, in pixels, of an image searched for a face: smaller ones are kept without a face box. */
const MIN_FACE_IMAGE_SIDE_PX = 64;
/** JPEG quality of the cut portrait. */
const PORTRAIT_JPEG_QUALITY = 90;

/** An image's upright size (EXIF orientations 5–8 swap width and height). */
async function uprightSize(bytes: Buffer): Promise<{ width: number; height: number }> {
  const meta = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
  const [width, height] = [meta.width ?? 0, meta.height ?? 0];
  return (meta.orientation ?? 1) >= 5 ? { width: height, height: width } : { width, height };
}

/** The size the face analysis saw: the upright image scaled down to fit `MAX_ANALYSIS_SIDE_PX`. */
function analysedSize(upright: { width: number; height: number }): { width: number; height: number } {
  const scale = Math.min(1, MAX_ANALYSIS_SIDE_PX / Math.max(upright.width, upright.height));
  return { width: Math.round(upright.width * scale), height: Math.round(upright.height * scale) };
}

/** Keeps a fraction inside 0–1, to four places (enough for any screen). */
const fraction = (value: number) => Math.round(Math.min(1, Math.max(0, value)) * 10_000) / 10_000;

/** A box in analysed pixels as fractions of that image. */
function relativeBox([x, y, width, height]: readonly number[], size: { width: number; height: number }): FaceBox {
  return {
    x: fraction(x! / size.width),
    y: fraction(y! / size.height),
    width: fraction(width! / size.width),
    height: fraction(height! / size.height),
  };
}

/**
 * The largest face of an image and its analysis, or null when it shows none (or is not an image
 * the detector reads): a kept file without a face is still kept, only without a box. Engines that
 * cannot answer in time throw their 503, so a portrait is never dropped for the server's load.
 */
export async function analyzeKeptFace(services: Services, bytes: Buffer, field: string): Promise<FaceAnalysis | null> {
  let size: { width: number; height: number };
  try {
    size = await uprightSize(bytes);
  } catch {
    return null; // not an image sharp reads: kept without a face box
  }
  // Too small to hold a face worth lining up: skip the detector (and a worker thread's model load at first use).
  if (Math.min(size.width, size.height) < MIN_FACE_IMAGE_SIDE_PX) return null;
  try {
    return await analyzeFaceOffThread(services.engines.executor, bytes, { field, pick: 'largest' });
  } catch (error) {
    // No face (a 4xx) is an answer; busy or timed-out engines (a 503) are not: the submission is retried, not kept without its face.
    if (isClientError(error)) return null;
    throw error;
  }
}

/** Where the analysed face is in the image, as fractions of the upright image. */
export async function faceBoxIn(bytes: Buffer, analysis: FaceAnalysis): Promise<FaceBox> {
  return relativeBox(analysis.box, analysedSize(await uprightSize(bytes)));
}

/**
 * Cuts the document portrait around the analysed face of a document front, upright, at the
 * resolution the detector saw it, framed like a passport photo; with the face's box in the cut.
 */
export async function cutPortrait(bytes: Buffer, analysis: FaceAnalysis): Promise<{ bytes: Buffer; face: FaceBox }> {
  const size = analysedSize(await uprightSize(bytes));
  const [faceX, faceY, faceWidth, faceHeight] = analysis.box;
  const width = Math.min(size.width, Math.round(faceWidth * PORTRAIT_WIDTH_FACES));
  const height = Math.min(size.height, Math.round(faceHeight * PORTRAIT_HEIGHT_FACES));
  const left = Math.round(Math.min(size.width - width, Math.max(0, faceX + faceWidth / 2 - width / 2)));
  const top = Math.round(Math.min(size.height - height, Math.max(0, faceY + faceHeight / 2 - height / 2)));
  const cut = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS })
    .rotate()
    .resize({ width: size.width, height: size.height, fit: 'fill' })
    .extract({ left, top, width, height })
    .jpeg({ quality: PORTRAIT_JPEG_QUALITY })
    .toBuffer();
  return { bytes: cut, face: relativeBox([faceX - left, faceY - top, faceWidth, faceHeight], { width, height }) };
}
