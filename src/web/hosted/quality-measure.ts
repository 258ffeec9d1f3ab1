/**
 * The photo checks of the hosted flow on plain RGBA pixels, with no DOM: the page runs them on
 * its canvas (`quality.ts`) and `npm run bench:quality` runs the very same code in Node on the
 * photos of `../shared/realdata`, so what the bench measures is what the person sees.
 *
 * Each check looks for the problem itself, not for a proxy a clean scan also has:
 * - too dark: the bright tones are missing (a high percentile of luma), not a low mean, which black
 *   borders or a dark background also give;
 * - too bright: the dark tones are missing (a low percentile of luma is high), not a large share of
 *   white pixels, which every scan on white paper has;
 * - glare: a clipped patch with a soft halo inside the picture, brighter than what surrounds it,
 *   not white paper or a white background (flat, bounded by print or touching the edge);
 * - blurred: the sharpest parts of the picture are soft (Laplacian variance of its most detailed
 *   tiles), so a plain background or smooth skin does not count as blur.
 */

/** A reason to retake a photo. */
export type QualityProblem = 'too_small' | 'too_dark' | 'too_bright' | 'blurry' | 'glare';

/** What is being photographed: glare is only looked for on documents. */
export type QualitySubject = 'document' | 'selfie';

/** RGBA pixels, four bytes a pixel, row by row (an `ImageData`, or decoded pixels in Node). */
export interface RgbaPixels {
  data: Uint8ClampedArray | Uint8Array;
  width: number;
  height: number;
}

/** What the checks measured, for the review screen, the bench and the tests. */
export interface QualityReport {
  problems: QualityProblem[];
  /** Luma (0–255) at the 5th and 95th percentiles of the analysis copy. */
  darkLuma: number;
  brightLuma: number;
  /** Laplacian variance of the sharpest tiles (the 90th percentile of the tiles' variances). */
  sharpness: number;
  /** Share of the picture, and of its central half (where a selfie's face is), whose every channel is clipped. */
  clippedShare: number;
  centreClippedShare: number;
  /** Share of the picture covered by glare patches (0 when none is found). */
  glareShare: number;
}

/** Longest side the page keeps of a photo (and uploads), in pixels: enough for the MRZ and the portrait. */
export const UPLOAD_SIDE_PX = 2000;
/** Longer side the analysis copy is reduced to, in pixels (box averaging, the same in Node and the browser). */
export const ANALYSIS_SIDE_PX = 640;
/**
 * Shorter and longer sides under which the server cannot read a document photo
 * (`src/engines/document/image.ts`, `MIN_SHORT_SIDE_PX` / `MIN_LONG_SIDE_PX`; a test keeps them
 * equal): the browser refuses only what the server would refuse.
 */
export const MIN_SHORT_SIDE_PX = 150;
export const MIN_LONG_SIDE_PX = 250;
/** 95th-percentile luma under which a photo is too dark: nothing in it is even mid-grey. */
const DARK_BRIGHT_LUMA = 90;
/** 5th-percentile luma over which a photo is washed out: not even the print is dark any more. */
const BRIGHT_DARK_LUMA = 150;
/**
 * Share of clipped pixels in the central half over which a selfie is burnt out: a face is never
 * white in a well-exposed photo (clean realdata faces ≤ 5 %), while dark clothes or a dark room
 * around it keep the dark tones (a document's paper may be white, so documents go by
 * BRIGHT_DARK_LUMA only).
 */
const SELFIE_CLIPPED_SHARE = 0.1;
/**
 * Laplacian variance of the sharpest tiles under which a document photo is blurred. Measured by
 * `npm run bench:quality`: clean realdata documents ≥ 598, the same blurred with σ 1 % of their
 * longer side ≤ 34 (docs/hosted-flow.md).
 */
const BLUR_VARIANCE = 60;
/**
 * The same for a selfie, lower: skin and a plain wall have little detail, and the face engine reads
 * a soft face. Clean realdata faces ≥ 32 (a video still), blurred ≤ 17.
 */
const SELFIE_BLUR_VARIANCE = 24;
/** Tiles per side of the grid the sharpness is measured on. */
const BLUR_TILES = 8;
/** Smallest value of every channel for a pixel to count as clipped. */
const CLIPPED_CHANNEL = 250;
/** Smallest glare patch that counts, as a share of the picture (a specular dot on a chip is not glare). */
const GLARE_MIN_SHARE = 0.002;
/** Luma of a pixel two steps outside a patch at which the patch's edge is soft there (a halo, not a printed border). */
const GLARE_HALO_LUMA = 235;
/** Steps outside a patch at which its edge is judged (in the analysis copy: past a printed border's antialiasing). */
const GLARE_SOFT_STEP = 4;
/** Share of a patch's edge that must be soft for it to be a reflection. */
const GLARE_SOFT_SHARE = 0.25;
/** How much darker the surroundings further out must be than the halo (light falling off, not flat paper). */
const GLARE_FALLOFF = 25;
/** Share of the picture under glare over which the photo is asked again. */
const GLARE_SHARE = 0.004;

/** The analysis copy's size for a source of the given size. */
export function analysisSize(width: number, height: number): { width: number; height: number } {
  const scale = Math.min(1, ANALYSIS_SIDE_PX / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/** Reduces pixels to the given size by averaging the source pixels each target pixel covers. */
export function reduce(source: RgbaPixels, width: number, height: number): RgbaPixels {
  if (width === source.width && height === source.height) return source;
  const out = new Uint8ClampedArray(width * height * 4);
  const sx = source.width / width;
  const sy = source.height / height;
  for (let y = 0; y < height; y++) {
    const y0 = Math.floor(y * sy);
    const y1 = Math.max(y0 + 1, Math.floor((y + 1) * sy));
    for (let x = 0; x < width; x++) {
      const x0 = Math.floor(x * sx);
      const x1 = Math.max(x0 + 1, Math.floor((x + 1) * sx));
      let r = 0;
      let g = 0;
      let b = 0;
      for (let yy = y0; yy < y1; yy++) {
        for (let xx = x0, p = (yy * source.width + x0) * 4; xx < x1; xx++, p += 4) {
          r += source.data[p];
          g += source.data[p + 1];
          b += source.data[p + 2];
        }
      }
      const n = (y1 - y0) * (x1 - x0);
      const q = (y * width + x) * 4;
      out[q] = r / n;
      out[q + 1] = g / n;
      out[q + 2] = b / n;
      out[q + 3] = 255;
    }
  }
  return { data: out, width, height };
}

/** Luma value at a share (0–1) of a 256-bin histogram holding `total` pixels. */
function percentile(histogram: Uint32Array, total: number, share: number): number {
  const target = share * total;
  let seen = 0;
  for (let value = 0; value < 256; value++) {
    seen += histogram[value];
    if (seen > target) return value;
  }
  return 255;
}

/** Laplacian (4-neighbour) variance of each tile of a grid, sorted: blur flattens second derivatives. */
function tileVariances(luma: Float32Array, w: number, h: number): number[] {
  const tiles = Math.max(1, Math.min(BLUR_TILES, Math.floor(Math.min(w, h) / 16)));
  const sums = new Float64Array(tiles * tiles);
  const squares = new Float64Array(tiles * tiles);
  const counts = new Uint32Array(tiles * tiles);
  for (let y = 1; y < h - 1; y++) {
    const row = Math.min(tiles - 1, Math.floor((y * tiles) / h)) * tiles;
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      const value = luma[i - 1] + luma[i + 1] + luma[i - w] + luma[i + w] - 4 * luma[i];
      const tile = row + Math.min(tiles - 1, Math.floor((x * tiles) / w));
      sums[tile] += value;
      squares[tile] += value * value;
      counts[tile]++;
    }
  }
  const variances: number[] = [];
  for (let t = 0; t < counts.length; t++) {
    if (counts[t] > 0) variances.push(squares[t] / counts[t] - (sums[t] / counts[t]) ** 2);
  }
  return variances.sort((a, b) => a - b);
}

/**
 * Share of the picture under glare: clipped patches that do not touch the picture's edge, are
 * large enough, have a bright soft ring just outside (a halo) and darker surroundings further out.
 * White paper is flat (no fall-off) or bounded by print (a dark ring); a white background touches
 * the edge.
 */
function glareShare(data: RgbaPixels['data'], luma: Float32Array, w: number, h: number): number {
  const n = w * h;
  // Label the clipped patches (4-connected), noting those that touch the edge.
  const label = new Int32Array(n).fill(-1);
  const areas: number[] = [];
  const touchesEdge: boolean[] = [];
  const stack: number[] = [];
  for (let start = 0; start < n; start++) {
    if (label[start] !== -1 || !clipped(data, start)) continue;
    const id = areas.length;
    let area = 0;
    let edge = false;
    label[start] = id;
    stack.push(start);
    while (stack.length > 0) {
      const i = stack.pop()!;
      area++;
      const x = i % w;
      const y = (i - x) / w;
      if (x === 0 || y === 0 || x === w - 1 || y === h - 1) edge = true;
      for (const j of [x > 0 ? i - 1 : -1, x < w - 1 ? i + 1 : -1, y > 0 ? i - w : -1, y < h - 1 ? i + w : -1]) {
        if (j >= 0 && label[j] === -1 && clipped(data, j)) {
          label[j] = id;
          stack.push(j);
        }
      }
    }
    areas.push(area);
    touchesEdge.push(edge);
  }
  const candidates = areas.map((area, id) => !touchesEdge[id] && area >= GLARE_MIN_SHARE * n);
  if (!candidates.some(Boolean)) return 0;
  // Rings around the candidate patches: a breadth-first walk out of their pixels keeps, for each
  // pixel, its distance (in steps) to the nearest candidate and which one that is (small clipped
  // specks, as JPEG noise leaves in a halo, are walked over like any pixel).
  const reach = areas.map((area) => Math.max(4, Math.round(Math.sqrt(area / Math.PI))));
  const maxReach = Math.max(...reach) + 2;
  const distance = new Uint16Array(n).fill(0xffff);
  const owner = new Int32Array(n).fill(-1);
  let frontier: number[] = [];
  for (let i = 0; i < n; i++) {
    if (label[i] >= 0 && candidates[label[i]]) {
      distance[i] = 0;
      owner[i] = label[i];
      frontier.push(i);
    }
  }
  // Per candidate: how many pixels two steps out are near-clipped (a soft edge) of how many, and
  // the luma histogram of the ring one patch-radius out (the surroundings).
  const soft = areas.map(() => ({ near: 0, all: 0 }));
  const outer = areas.map((_, id) => (candidates[id] ? new Uint32Array(256) : null));
  const haloBins = areas.map((_, id) => (candidates[id] ? new Uint32Array(256) : null));
  for (let d = 1; d <= maxReach && frontier.length > 0; d++) {
    const next: number[] = [];
    for (const i of frontier) {
      const x = i % w;
      for (const j of [x > 0 ? i - 1 : -1, x < w - 1 ? i + 1 : -1, i >= w ? i - w : -1, i + w < n ? i + w : -1]) {
        if (j < 0 || distance[j] !== 0xffff) continue;
        distance[j] = d;
        const id = owner[i];
        owner[j] = id;
        next.push(j);
        if (!candidates[id]) continue;
        const bin = Math.min(255, Math.round(luma[j]));
        if (d <= 2) haloBins[id]![bin]++;
        if (d === GLARE_SOFT_STEP) {
          soft[id].all++;
          if (luma[j] >= GLARE_HALO_LUMA) soft[id].near++;
        } else if (d >= reach[id] && d <= reach[id] + 2) outer[id]![bin]++;
      }
    }
    frontier = next;
  }
  let glare = 0;
  for (let id = 0; id < areas.length; id++) {
    const outerBins = outer[id];
    if (!outerBins || soft[id].all === 0) continue;
    const outerCount = outerBins.reduce((a, b) => a + b, 0);
    if (outerCount === 0) continue;
    const haloLuma = percentile(
      haloBins[id]!,
      haloBins[id]!.reduce((a, b) => a + b, 0),
      0.5,
    );
    const softShare = soft[id].near / soft[id].all;
    const outerLuma = percentile(outerBins, outerCount, 0.5);
    // The patch's share of soft edge counts: a reflection spread over printed boxes keeps its own part.
    if (softShare >= GLARE_SOFT_SHARE && haloLuma - outerLuma >= GLARE_FALLOFF) glare += areas[id] * softShare;
  }
  return glare / n;
}

/** Whether every channel of pixel `i` is at the top of its range. */
function clipped(data: RgbaPixels['data'], i: number): boolean {
  const p = i * 4;
  return data[p] >= CLIPPED_CHANNEL && data[p + 1] >= CLIPPED_CHANNEL && data[p + 2] >= CLIPPED_CHANNEL;
}

/**
 * Checks a photo. `pixels` is the photo or a copy of it at any size (it is reduced to
 * ANALYSIS_SIDE_PX here); `width` and `height` are the photo's own size, for the too-small check.
 */
export function measureQuality(pixels: RgbaPixels, width: number, height: number, subject: QualitySubject): QualityReport {
  const size = analysisSize(pixels.width, pixels.height);
  const { data, width: w, height: h } = reduce(pixels, size.width, size.height);
  const luma = new Float32Array(w * h);
  const histogram = new Uint32Array(256);
  let clippedCount = 0;
  let centreClipped = 0;
  for (let i = 0, p = 0; i < luma.length; i++, p += 4) {
    const y = 0.299 * data[p] + 0.587 * data[p + 1] + 0.114 * data[p + 2];
    luma[i] = y;
    histogram[Math.min(255, Math.round(y))]++;
    if (clipped(data, i)) {
      clippedCount++;
      const x = i % w;
      const row = (i - x) / w;
      if (x >= w / 4 && x < (3 * w) / 4 && row >= h / 4 && row < (3 * h) / 4) centreClipped++;
    }
  }
  const centreShare = centreClipped / (w * h * 0.25);
  const clippedShare = clippedCount / luma.length;
  const darkLuma = percentile(histogram, luma.length, 0.05);
  const brightLuma = percentile(histogram, luma.length, 0.95);
  const variances = tileVariances(luma, w, h);
  const sharpness = variances.length > 0 ? variances[Math.floor(0.9 * (variances.length - 1))] : 0;
  const glare = subject === 'document' ? glareShare(data, luma, w, h) : 0;
  const problems: QualityProblem[] = [];
  if (Math.min(width, height) < MIN_SHORT_SIDE_PX || Math.max(width, height) < MIN_LONG_SIDE_PX) problems.push('too_small');
  if (brightLuma < DARK_BRIGHT_LUMA) problems.push('too_dark');
  else if (darkLuma > BRIGHT_DARK_LUMA || (subject === 'selfie' && centreShare > SELFIE_CLIPPED_SHARE)) problems.push('too_bright');
  if (sharpness < (subject === 'selfie' ? SELFIE_BLUR_VARIANCE : BLUR_VARIANCE)) problems.push('blurry');
  if (glare > GLARE_SHARE) problems.push('glare');
  return { problems, darkLuma, brightLuma, sharpness, clippedShare, centreClippedShare: centreShare, glareShare: glare };
}
