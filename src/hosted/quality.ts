/**
 * Checks of a photo in the browser before it is sent, so the end user retakes a bad photo at
 * once instead of waiting for the server to refuse it. Measured on a copy scaled to
 * ANALYSIS_SIDE_PX on its longer side.
 */

/** A reason to retake a photo. */
export type QualityProblem = 'too_small' | 'too_dark' | 'too_bright' | 'blurry' | 'glare';

/** Longer side the analysis copy is scaled to, in pixels. */
const ANALYSIS_SIDE_PX = 640;
/** Shorter side under which a document photo cannot be read, in pixels (the server reads from 150). */
export const MIN_SHORT_SIDE_PX = 300;
/** Mean luma (0–255) under which a photo is too dark. */
const DARK_MEAN = 45;
/** Share of clipped pixels over which a photo is washed out (white paper itself is not clipped). */
const OVEREXPOSED_SHARE = 0.5;
/**
 * Variance of the Laplacian of the analysis copy under which it is blurred: a sharp synthetic
 * passport measures ~1,950, the same blurred with σ 2 ~170 (still read by the server), σ 4 ~8.
 */
const BLUR_VARIANCE = 40;
/** Share of clipped pixels that means a reflection on the document. */
const GLARE_SHARE = 0.03;
/** Smallest value of every channel for a pixel to count as clipped (a specular highlight, not paper). */
const CLIPPED_CHANNEL = 252;

/** What the checks measured, for the review screen and the tests. */
export interface QualityReport {
  problems: QualityProblem[];
  mean: number;
  laplacianVariance: number;
  glareShare: number;
}

/** Measures a drawable (image, canvas, video frame) of the given size. */
export function assessQuality(source: CanvasImageSource, width: number, height: number, options: { checkGlare: boolean }): QualityReport {
  const scale = Math.min(1, ANALYSIS_SIDE_PX / Math.max(width, height));
  const w = Math.max(1, Math.round(width * scale));
  const h = Math.max(1, Math.round(height * scale));
  const canvas = document.createElement('canvas');
  canvas.width = w;
  canvas.height = h;
  const context = canvas.getContext('2d', { willReadFrequently: true })!;
  context.drawImage(source, 0, 0, w, h);
  const { data } = context.getImageData(0, 0, w, h);
  const luma = new Float32Array(w * h);
  let sum = 0;
  let highlights = 0;
  for (let i = 0, p = 0; i < luma.length; i++, p += 4) {
    const y = 0.299 * data[p] + 0.587 * data[p + 1] + 0.114 * data[p + 2];
    luma[i] = y;
    sum += y;
    if (Math.min(data[p], data[p + 1], data[p + 2]) >= CLIPPED_CHANNEL) highlights++;
  }
  const mean = sum / luma.length;
  // Laplacian (4-neighbour) variance: sharp edges give large second derivatives, blur flattens them.
  let lapSum = 0;
  let lapSquares = 0;
  let count = 0;
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      const value = luma[i - 1] + luma[i + 1] + luma[i - w] + luma[i + w] - 4 * luma[i];
      lapSum += value;
      lapSquares += value * value;
      count++;
    }
  }
  const laplacianVariance = count > 0 ? lapSquares / count - (lapSum / count) ** 2 : 0;
  const glareShare = highlights / luma.length;
  const problems: QualityProblem[] = [];
  if (Math.min(width, height) < MIN_SHORT_SIDE_PX) problems.push('too_small');
  if (mean < DARK_MEAN) problems.push('too_dark');
  else if (glareShare > OVEREXPOSED_SHARE) problems.push('too_bright');
  if (laplacianVariance < BLUR_VARIANCE) problems.push('blurry');
  if (options.checkGlare && glareShare > GLARE_SHARE && glareShare <= OVEREXPOSED_SHARE) problems.push('glare');
  return { problems, mean, laplacianVariance, glareShare };
}

/** Longest side sent to the server, in pixels: enough for the MRZ and the portrait, far less to upload. */
export const UPLOAD_SIDE_PX = 2000;

/** A JPEG data URI of the source, scaled down to UPLOAD_SIDE_PX on its longer side. */
export function toJpegDataUri(source: CanvasImageSource, width: number, height: number): string {
  const scale = Math.min(1, UPLOAD_SIDE_PX / Math.max(width, height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(width * scale);
  canvas.height = Math.round(height * scale);
  canvas.getContext('2d')!.drawImage(source, 0, 0, canvas.width, canvas.height);
  return canvas.toDataURL('image/jpeg', 0.92);
}
