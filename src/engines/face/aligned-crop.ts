/**
 * The face as a small aligned picture, for the second replay signal (docs/face.md "Document-portrait
 * replays"): a selfie that is the document's portrait re-shown (cropped, photographed, perturbed so
 * its embedding moves) still has the same pixels where the face is. The eyes found by face-api's 68
 * landmarks are brought to fixed places of a `ALIGNED_CROP_SIDE`² grey crop (a similarity
 * transform: shift, scale, in-plane rotation), the crop is normalised to zero mean and unit
 * variance (so brightness and contrast changes do not count), and two crops are compared by their
 * correlation (NCC). Two captures of one person differ in pose, expression and light, so they
 * correlate far less than a copy does. Only this normalised crop is kept (sealed) from a document
 * step, never the image.
 */
import type { Point } from './head-pose.js';
import { FACE_CROP_SCALE, FACE_CROP_SIDE_PX } from './faceapi.js';
import type { Rgb } from '../recapture-evidence.js';

/** Side of the aligned crop, in pixels: enough for the eyes, nose and mouth, too coarse for skin texture or noise. */
export const ALIGNED_CROP_SIDE = 24;
/** Where the eyes' centres land in the aligned crop, as shares of its side (x of each eye, y of both). */
const EYE_X = [0.3, 0.7] as const;
const EYE_Y = 0.38;
/** Samples averaged per crop pixel along each axis (area sampling, so a large face does not alias). */
const SUPERSAMPLE = 3;

/** The face box and landmarks as the face analysis gives them (box in analysed-image pixels, landmarks in face-api's crop). */
export interface AlignableFace {
  box: [number, number, number, number] | readonly number[];
  landmarks: readonly Point[];
}

/** Mean of points. */
function mean(points: readonly Point[]): Point {
  return { x: points.reduce((sum, p) => sum + p.x, 0) / points.length, y: points.reduce((sum, p) => sum + p.y, 0) / points.length };
}

/**
 * Landmarks of `face` in the analysed image's pixels: face-api found them in a square crop of
 * `FACE_CROP_SCALE` times the box's larger side, scaled to `FACE_CROP_SIDE_PX` (faceapi.ts
 * `describeFaceAt`).
 */
export function landmarksInImage(face: AlignableFace): Point[] {
  const [x, y, width, height] = face.box;
  const side = FACE_CROP_SCALE * Math.max(width, height);
  const left = x + width / 2 - side / 2;
  const top = y + height / 2 - side / 2;
  const scale = side / FACE_CROP_SIDE_PX;
  return face.landmarks.map((point) => ({ x: left + point.x * scale, y: top + point.y * scale }));
}

/**
 * The aligned, normalised grey crop of `face` in `image` (the upright image the face was analysed
 * in), `ALIGNED_CROP_SIDE`² values in row order; null without 68 landmarks or when the eyes coincide.
 */
export function alignedCrop(image: Rgb, face: AlignableFace): number[] | null {
  if (face.landmarks.length !== 68) return null;
  const points = landmarksInImage(face);
  const leftEye = mean(points.slice(36, 42));
  const rightEye = mean(points.slice(42, 48));
  const eyeDistance = Math.hypot(rightEye.x - leftEye.x, rightEye.y - leftEye.y);
  if (eyeDistance < 1) return null;
  const n = ALIGNED_CROP_SIDE;
  // Crop pixels per image pixel along the eye line, and the eye line's direction in the image.
  const pixelsPerCrop = eyeDistance / ((EYE_X[1] - EYE_X[0]) * n);
  const cos = (rightEye.x - leftEye.x) / eyeDistance;
  const sin = (rightEye.y - leftEye.y) / eyeDistance;
  const anchor = { x: EYE_X[0] * n, y: EYE_Y * n };
  const grey = (x: number, y: number): number => {
    const cx = Math.min(image.width - 1, Math.max(0, x));
    const cy = Math.min(image.height - 1, Math.max(0, y));
    const x0 = Math.floor(cx);
    const y0 = Math.floor(cy);
    const x1 = Math.min(image.width - 1, x0 + 1);
    const y1 = Math.min(image.height - 1, y0 + 1);
    const at = (px: number, py: number) => {
      const i = (py * image.width + px) * 3;
      return 0.299 * image.data[i] + 0.587 * image.data[i + 1] + 0.114 * image.data[i + 2];
    };
    const fx = cx - x0;
    const fy = cy - y0;
    return (at(x0, y0) * (1 - fx) + at(x1, y0) * fx) * (1 - fy) + (at(x0, y1) * (1 - fx) + at(x1, y1) * fx) * fy;
  };
  const values = new Array<number>(n * n);
  for (let v = 0; v < n; v++) {
    for (let u = 0; u < n; u++) {
      let sum = 0;
      for (let sv = 0; sv < SUPERSAMPLE; sv++) {
        for (let su = 0; su < SUPERSAMPLE; su++) {
          const du = (u + (su + 0.5) / SUPERSAMPLE - anchor.x) * pixelsPerCrop;
          const dv = (v + (sv + 0.5) / SUPERSAMPLE - anchor.y) * pixelsPerCrop;
          sum += grey(leftEye.x + du * cos - dv * sin, leftEye.y + du * sin + dv * cos);
        }
      }
      values[v * n + u] = sum / (SUPERSAMPLE * SUPERSAMPLE);
    }
  }
  const average = values.reduce((sum, value) => sum + value, 0) / values.length;
  const spread = Math.sqrt(values.reduce((sum, value) => sum + (value - average) ** 2, 0) / values.length);
  if (spread < 1e-6) return null;
  return values.map((value) => Math.round(((value - average) / spread) * 1000) / 1000);
}

/** Correlation (NCC, −1 to 1) of two aligned crops; 0 when either is missing or they differ in size. */
export function cropCorrelation(a: readonly number[] | null | undefined, b: readonly number[] | null | undefined): number {
  if (!a || !b || a.length !== b.length || a.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum / a.length;
}
