/**
 * Checks of a photo in the browser before it is sent, so the end user retakes a bad photo at
 * once instead of waiting for the server to refuse it. The checks themselves are
 * `quality-measure.ts` (no DOM, also run by `npm run bench:quality` on real photos); this module
 * draws the photo onto a canvas for them and encodes the upload.
 */
import { measureQuality, UPLOAD_SIDE_PX, type QualityReport, type QualitySubject } from './quality-measure.js';

export type { QualityProblem, QualityReport } from './quality-measure.js';
export { UPLOAD_SIDE_PX } from './quality-measure.js';

/** A canvas holding the source scaled down to UPLOAD_SIDE_PX on its longer side (the copy that is uploaded). */
function uploadCanvas(source: CanvasImageSource, width: number, height: number): HTMLCanvasElement {
  const scale = Math.min(1, UPLOAD_SIDE_PX / Math.max(width, height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(width * scale));
  canvas.height = Math.max(1, Math.round(height * scale));
  const context = canvas.getContext('2d', { willReadFrequently: true })!;
  context.imageSmoothingQuality = 'high';
  context.drawImage(source, 0, 0, canvas.width, canvas.height);
  return canvas;
}

/** Measures a drawable (image, canvas, video frame) of the given size, as the upload copy holds it. */
export function assessQuality(source: CanvasImageSource, width: number, height: number, subject: QualitySubject): QualityReport {
  const canvas = uploadCanvas(source, width, height);
  const pixels = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
  return measureQuality(pixels, width, height, subject);
}

/** A JPEG data URI of the source, scaled down to UPLOAD_SIDE_PX on its longer side. */
export function toJpegDataUri(source: CanvasImageSource, width: number, height: number): string {
  return uploadCanvas(source, width, height).toDataURL('image/jpeg', 0.92);
}
