/**
 * Tamper score of a document image by regional error-level analysis (ELA).
 *
 * A region pasted into a document usually went through a JPEG compression of its own. ELA
 * re-encodes the image as JPEG at several known qualities (`ELA_QUALITIES`) and measures, per
 * block of `ELA_BLOCK_PX` pixels, the squared error between the image and each re-encoding: the
 * block's error curve. A block once compressed at quality q has a dip in its curve near q (a
 * "JPEG ghost"); blocks that share the image's history share the shape of the curve. So:
 * 1. Only content blocks count (error at the lowest quality above `CONTENT_MIN_ERROR`): flat paper
 *    has no error at any quality and says nothing.
 * 2. Each block's curve is divided by its own maximum, so the amount of ink does not matter,
 *    only the shape; the deviation of a block is its largest distance from the median curve.
 * 3. A block is anomalous when its deviation is more than `ANOMALY_Z` robust standard deviations
 *    (median absolute deviation × 1.4826, at least `MIN_SPREAD`) above the median deviation.
 * 4. Regional: the share of anomalous blocks in every window of `WINDOW_ROWS` × `WINDOW_COLS`
 *    blocks (with at least `WINDOW_MIN_CONTENT` content blocks); the densest window counts.
 *    Sharp glyph edges give isolated anomalies (about a quarter of a window at most on clean
 *    documents); an edit gives a dense cluster.
 * 5. `score = clamp((densest − BASELINE_DENSITY) / DENSITY_RANGE, 0, 1)`.
 * Measured on rendered bills: clean PNG and JPEG (q75–q92) 0–0.21; a name pasted from a q40 JPEG
 * on the 8-pixel JPEG grid ≈ 1; the same paste off the grid 0.3–0.4 (ELA is weaker there).
 * 6. Only where it means something: a textured image (see `ELA_MAX_CONTENT_SHARE`) is capped below review.
 */
import sharp from 'sharp';
import { decodingClientImage, MAX_INPUT_PIXELS } from '../data-uri.js';

/** JPEG qualities the image is re-encoded at, lowest first. */
export const ELA_QUALITIES = [30, 40, 50, 60, 70, 80, 90] as const;
/** Side of an analysis block, in pixels (two JPEG 8×8 blocks). */
export const ELA_BLOCK_PX = 16;
/** Mean squared error per channel at the lowest quality above which a block has content. */
export const CONTENT_MIN_ERROR = 5;
/** Robust z-score above which a block's curve is anomalous. */
export const ANOMALY_Z = 3;
/** Floor of the robust spread of deviations, so near-identical curves do not make noise look anomalous. */
export const MIN_SPREAD = 0.02;
/** Window height, in blocks. */
export const WINDOW_ROWS = 3;
/** Window width, in blocks. */
export const WINDOW_COLS = 4;
/**
 * Fewest content blocks (of the window's 12) for a window to count: two thirds, so a window that is
 * mostly paper with a few noisy blocks (the darker side of an unevenly lit photo, where grain turns
 * into content) cannot reach a high density on three or four of them. Six let synthetic phone
 * photos of a clean bill score 0.42–0.69; eight keep them at or below 0.42 while a pasted name
 * still scores 1.
 */
export const WINDOW_MIN_CONTENT = 8;
/** Anomaly density a clean document reaches (isolated glyph edges). */
export const BASELINE_DENSITY = 0.25;
/** Density above the baseline that maps to a score of 1. */
export const DENSITY_RANGE = 0.6;
/**
 * Largest share of content blocks for ELA to be evidence. A scanned or digital document is mostly
 * flat paper: rendered bills measure 0.15 (PNG, JPEG q85) to 0.22 (rotated, noisy, blurred, dimmed
 * as a phone photo). Camera photos and specimens with printed backgrounds are texture and sensor
 * noise nearly everywhere: 0.38 to 1.0 on the real face and ID photos of ../shared/realdata, where
 * genuine images scored up to 1 (JPEG history and texture vary block by block, so anomalies
 * measure the scene, not an edit).
 */
export const ELA_MAX_CONTENT_SHARE = 0.35;
/** Highest score of an image above `ELA_MAX_CONTENT_SHARE`: below review, since there ELA cannot tell an edit from texture. */
export const ELA_TEXTURED_MAX_SCORE = 0.3;
/** Largest image analysed, in pixels; a larger one is analysed on its top-left crop of this area. */
export const ELA_MAX_PIXELS = 12_000_000;

function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * Tamper score of an image in [0, 1], rounded to 2 decimals (see module comment), capped at
 * `ELA_TEXTURED_MAX_SCORE` for a textured image (a camera photo) whose content share exceeds
 * `ELA_MAX_CONTENT_SHARE`.
 */
export async function elaTamperScore(image: Buffer): Promise<number> {
  const { score, contentShare } = await elaAnalysis(image);
  return contentShare > ELA_MAX_CONTENT_SHARE ? Math.min(score, ELA_TEXTURED_MAX_SCORE) : score;
}

/** What regional ELA measured on an image. */
export interface ElaAnalysis {
  /** See `elaTamperScore`. */
  score: number;
  /** Share of the analysed blocks that carry content (ink, texture, sensor noise) rather than flat paper. */
  contentShare: number;
}

/** Regional ELA of an image (see module comment). */
export async function elaAnalysis(image: Buffer): Promise<ElaAnalysis> {
  let pipeline = sharp(image, { failOn: 'error', limitInputPixels: MAX_INPUT_PIXELS })
    .flatten({ background: '#ffffff' })
    .removeAlpha()
    .toColourspace('srgb');
  const { width: fullWidth = 0, height: fullHeight = 0 } = await decodingClientImage(() =>
    sharp(image, { limitInputPixels: MAX_INPUT_PIXELS }).metadata(),
  );
  if (fullWidth * fullHeight > ELA_MAX_PIXELS) {
    const side = Math.floor(Math.sqrt(ELA_MAX_PIXELS));
    pipeline = pipeline.extract({ left: 0, top: 0, width: Math.min(fullWidth, side), height: Math.min(fullHeight, side) });
  }
  const { data: pixels, info } = await decodingClientImage(() => pipeline.raw().toBuffer({ resolveWithObject: true }));
  const { width, height, channels } = info;
  const cols = Math.floor(width / ELA_BLOCK_PX);
  const rows = Math.floor(height / ELA_BLOCK_PX);
  if (cols === 0 || rows === 0) return { score: 0, contentShare: 0 };

  const curves: number[][] = Array.from({ length: cols * rows }, () => []);
  const perBlock = ELA_BLOCK_PX * ELA_BLOCK_PX * channels;
  for (const quality of ELA_QUALITIES) {
    const jpeg = await sharp(pixels, { raw: info }).jpeg({ quality, chromaSubsampling: '4:4:4', mozjpeg: false }).toBuffer();
    const { data: again } = await sharp(jpeg).raw().toBuffer({ resolveWithObject: true });
    for (let row = 0; row < rows; row++) {
      for (let col = 0; col < cols; col++) {
        let sum = 0;
        for (let y = row * ELA_BLOCK_PX; y < (row + 1) * ELA_BLOCK_PX; y++) {
          const start = (y * width + col * ELA_BLOCK_PX) * channels;
          for (let i = start; i < start + ELA_BLOCK_PX * channels; i++) {
            const d = pixels[i] - again[i];
            sum += d * d;
          }
        }
        curves[row * cols + col].push(sum / perBlock);
      }
    }
  }

  const deviation = new Map<number, number>();
  const content = curves.flatMap((curve, index) => (curve[0] > CONTENT_MIN_ERROR ? [index] : []));
  const contentShare = content.length / (cols * rows);
  if (content.length < WINDOW_MIN_CONTENT) return { score: 0, contentShare };
  const shapes = new Map(content.map((index) => [index, curves[index].map((v) => v / Math.max(...curves[index]))]));
  const medianCurve = ELA_QUALITIES.map((_, k) => median(content.map((index) => shapes.get(index)![k])));
  for (const index of content) {
    deviation.set(index, Math.max(...shapes.get(index)!.map((v, k) => Math.abs(v - medianCurve[k]))));
  }
  const deviations = [...deviation.values()];
  const centre = median(deviations);
  const spread = Math.max(median(deviations.map((d) => Math.abs(d - centre))) * 1.4826, MIN_SPREAD);

  let densest = 0;
  for (let row = 0; row + WINDOW_ROWS <= rows; row++) {
    for (let col = 0; col + WINDOW_COLS <= cols; col++) {
      let counted = 0;
      let anomalous = 0;
      for (let y = row; y < row + WINDOW_ROWS; y++) {
        for (let x = col; x < col + WINDOW_COLS; x++) {
          const d = deviation.get(y * cols + x);
          if (d === undefined) continue;
          counted++;
          if ((d - centre) / spread > ANOMALY_Z) anomalous++;
        }
      }
      if (counted >= WINDOW_MIN_CONTENT) densest = Math.max(densest, anomalous / counted);
    }
  }
  const score = Math.min(1, Math.max(0, (densest - BASELINE_DENSITY) / DENSITY_RANGE));
  return { score: Math.round(score * 100) / 100, contentShare: Math.round(contentShare * 100) / 100 };
}
