/**
 * The hosted flow's photo checks as they were before `bench:quality` measured them (main at
 * b7f67d8, `src/web/hosted/quality.ts`), kept so the bench prints the old false alarms beside the new
 * ones in the same run. The page drew the photo onto a 640 px canvas (Chromium's default
 * bilinear sampling, reproduced here), then: too dark under a mean luma of 45; too bright over
 * 50 % clipped pixels; blurred under a Laplacian variance of 40 over the whole picture; glare over
 * 3 % clipped pixels; too small under 300 px on the shorter side.
 */
import type { QualityProblem, QualitySubject, RgbaPixels } from '../../src/web/hosted/quality-measure.js';

/** The old canvas copy: bilinear sampling of the source at the target size, no averaging. */
function bilinearCopy(source: RgbaPixels, w: number, h: number): Float32Array {
  const luma = new Float32Array(w * h);
  const clip = new Uint8Array(w * h);
  const sx = source.width / w;
  const sy = source.height / h;
  const at = (x: number, y: number, c: number) => source.data[(y * source.width + x) * 4 + c];
  for (let y = 0; y < h; y++) {
    const fy = Math.min(source.height - 1, Math.max(0, (y + 0.5) * sy - 0.5));
    const y0 = Math.floor(fy);
    const y1 = Math.min(source.height - 1, y0 + 1);
    for (let x = 0; x < w; x++) {
      const fx = Math.min(source.width - 1, Math.max(0, (x + 0.5) * sx - 0.5));
      const x0 = Math.floor(fx);
      const x1 = Math.min(source.width - 1, x0 + 1);
      const rgb = [0, 1, 2].map((c) =>
        Math.round(
          (at(x0, y0, c) * (x1 - fx || 1) + at(x1, y0, c) * (fx - x0)) * (y1 - fy || 1) +
            (at(x0, y1, c) * (x1 - fx || 1) + at(x1, y1, c) * (fx - x0)) * (fy - y0),
        ),
      );
      luma[y * w + x] = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2];
      clip[y * w + x] = Math.min(...rgb) >= 252 ? 1 : 0;
    }
  }
  (luma as Float32Array & { clip?: Uint8Array }).clip = clip;
  return luma;
}

/** The old verdict on a photo of the given own size. */
export function baselineProblems(pixels: RgbaPixels, width: number, height: number, subject: QualitySubject): QualityProblem[] {
  const scale = Math.min(1, 640 / Math.max(pixels.width, pixels.height));
  const w = Math.max(1, Math.round(pixels.width * scale));
  const h = Math.max(1, Math.round(pixels.height * scale));
  const luma = bilinearCopy(pixels, w, h);
  const clip = (luma as Float32Array & { clip: Uint8Array }).clip;
  let sum = 0;
  let highlights = 0;
  for (let i = 0; i < luma.length; i++) {
    sum += luma[i];
    highlights += clip[i];
  }
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
  const variance = count > 0 ? lapSquares / count - (lapSum / count) ** 2 : 0;
  const mean = sum / luma.length;
  const share = highlights / luma.length;
  const problems: QualityProblem[] = [];
  if (Math.min(width, height) < 300) problems.push('too_small');
  if (mean < 45) problems.push('too_dark');
  else if (share > 0.5) problems.push('too_bright');
  if (variance < 40) problems.push('blurry');
  if (subject === 'document' && share > 0.03 && share <= 0.5) problems.push('glare');
  return problems;
}
