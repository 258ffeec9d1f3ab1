/**
 * Image evidence that a photo is a re-capture (a camera photographing a print or a screen) rather
 * than a photo of the real thing. No model: each measure is a physical trace of the medium the
 * attacker presents, and each is reported by name so a reviewer sees why (docs/fraud.md):
 * - `periodicPeak`: a print's halftone dots, a screen's sub-pixel grid or scanlines, and the moiré
 *   they make with the camera's sensor are periodic; skin, hair and most scenes are not. Measured
 *   as the most prominent isolated peak of the region's averaged power spectrum (Welch: Hann-
 *   windowed 64×64 tiles, FFT by fft.js).
 * - `frameSides`: a print's paper edge or a screen's bezel is a straight step edge that runs
 *   unbroken past the face on its side; in a genuine scene the body and the head interrupt such
 *   lines. Counted as how many of the face's four sides have one.
 * - `tone`: inks and screens shift colour and compress the tone range: the skin's red–blue margin
 *   and the region's black level.
 * - `cameraMetadata`: whether the file carries the EXIF make/model or capture time a camera writes.
 */
import FFT from 'fft.js';
import exifReader from 'exif-reader';
import sharp from 'sharp';
import { decodingClientImage, MAX_INPUT_PIXELS } from './data-uri.js';

/** Side of the square tiles the spectrum is averaged over, in pixels (a power of two for the FFT). */
export const SPECTRUM_TILE_PX = 64;
/** Most tiles averaged per region; more add time, not evidence. */
export const SPECTRUM_MAX_TILES = 96;
/** Lowest spatial frequency searched for peaks, in FFT bins of a tile (6/64 ≈ one cycle per 11 px): below it lie the scene's own shapes. Bins on the 1/8-cycle JPEG block grid are skipped. */
export const SPECTRUM_MIN_BIN = 6;
/** Longest side the straight-edge search runs at, in pixels: paper and bezel edges survive it, sensor noise does not. */
export const FRAME_ANALYSIS_SIDE_PX = 480;
/** Share of a side's span an unbroken edge must cover to count as a frame edge. */
export const FRAME_MIN_COVERAGE = 0.85;
/** Largest tilt of a frame edge searched, in degrees (a print or phone held askew). */
export const FRAME_MAX_TILT_DEG = 20;
/** Smallest luminance gradient (Sobel, 0–255 scale) that counts as an edge pixel. */
export const FRAME_EDGE_MIN_GRADIENT = 14;

/** One named piece of re-capture evidence as a node's details carry it (selfie PAD and document re-capture). */
export type EvidenceSignal<Name extends string> = {
  /** Which signal. */
  name: Name;
  /** `failed`: strong evidence of a re-capture; `warning`: weak evidence; `passed`: none. */
  outcome: 'passed' | 'warning' | 'failed';
  /** What was measured. */
  value: number | boolean;
  /** The limit it was judged against (null for a signal that is only reported). */
  limit: number | null;
  /** The evidence in plain words, for the reviewer. */
  meaning: string;
};

/** Upright RGB pixels of an image. */
export interface Rgb {
  data: Uint8Array;
  width: number;
  height: number;
}

/** A rectangle `[x, y, width, height]` in pixels. */
export type Box = [number, number, number, number];

/** Decodes an image upright to RGB, no side longer than `maxSide` (the face engine's analysis size, so its boxes apply). */
export async function decodeUpright(bytes: Buffer, maxSide: number): Promise<Rgb> {
  const { data, info } = await decodingClientImage(() =>
    sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS })
      .rotate()
      .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true })
      .removeAlpha()
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true }),
  );
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

/** `box` grown by `factor` around its centre and clipped to the image. */
export function grow(box: Box, factor: number, width: number, height: number): Box {
  const [x, y, w, h] = box;
  const cx = x + w / 2;
  const cy = y + h / 2;
  const left = Math.max(0, Math.round(cx - (w * factor) / 2));
  const top = Math.max(0, Math.round(cy - (h * factor) / 2));
  const right = Math.min(width, Math.round(cx + (w * factor) / 2));
  const bottom = Math.min(height, Math.round(cy + (h * factor) / 2));
  return [left, top, Math.max(0, right - left), Math.max(0, bottom - top)];
}

function luminance(image: Rgb): Float32Array {
  const out = new Float32Array(image.width * image.height);
  for (let i = 0, p = 0; i < out.length; i++, p += 3) {
    out[i] = 0.299 * image.data[p] + 0.587 * image.data[p + 1] + 0.114 * image.data[p + 2];
  }
  return out;
}

/** FFT and Hann window per tile side, made once. */
const transforms = new Map<number, { fft: FFT; hann: Float64Array }>();

/**
 * Prominence (natural log of power) of the most isolated periodic peak in `region`: per bin, how
 * far its log power stands above its neighbours at 2 and 3 bins in each of four directions, the
 * weakest direction counting, so a line in the spectrum (a straight edge of the scene) scores low
 * and only a point (a periodic texture) scores high. 0 when the region holds fewer than `minTiles`
 * half-overlapping tiles of `tile` px (one at least): an average over too few tiles is noise.
 */
export function periodicPeak(image: Rgb, region: Box, tile = SPECTRUM_TILE_PX, minTiles = 1): number {
  const n = tile;
  const [rx, ry, rw, rh] = region;
  if (rw < n || rh < n) return 0;
  if ((Math.floor((rw - n) / (n / 2)) + 1) * (Math.floor((rh - n) / (n / 2)) + 1) < minTiles) return 0;
  let transform = transforms.get(n);
  if (!transform) {
    transform = { fft: new FFT(n), hann: Float64Array.from({ length: n }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (n - 1))) };
    transforms.set(n, transform);
  }
  const { fft, hann } = transform;
  const grey = luminance(image);
  const across = Math.floor((rw - n) / (n / 2)) + 1;
  const down = Math.floor((rh - n) / (n / 2)) + 1;
  const stride = Math.max(1, Math.ceil(Math.sqrt((across * down) / SPECTRUM_MAX_TILES)));
  const power = new Float64Array(n * n);
  const rows = Array.from({ length: n }, () => fft.createComplexArray() as number[]);
  const input = new Array<number>(n).fill(0);
  const column = fft.createComplexArray() as number[];
  const columnOut = fft.createComplexArray() as number[];
  let tiles = 0;
  for (let ty = 0; ty < down; ty += stride) {
    for (let tx = 0; tx < across; tx += stride) {
      const left = rx + tx * (n / 2);
      const top = ry + ty * (n / 2);
      let mean = 0;
      for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) mean += grey[(top + y) * image.width + left + x];
      mean /= n * n;
      for (let y = 0; y < n; y++) {
        for (let x = 0; x < n; x++) input[x] = (grey[(top + y) * image.width + left + x] - mean) * hann[x] * hann[y];
        fft.realTransform(rows[y], input);
        fft.completeSpectrum(rows[y]);
      }
      for (let u = 0; u < n; u++) {
        for (let y = 0; y < n; y++) {
          column[2 * y] = rows[y][2 * u];
          column[2 * y + 1] = rows[y][2 * u + 1];
        }
        fft.transform(columnOut, column);
        for (let v = 0; v < n; v++) power[v * n + u] += columnOut[2 * v] ** 2 + columnOut[2 * v + 1] ** 2;
      }
      tiles++;
    }
  }
  const log = Float64Array.from(power, (p) => Math.log(p / tiles + 1e-9));
  const at = (u: number, v: number) => log[(((v % n) + n) % n) * n + (((u % n) + n) % n)];
  const half = n / 2;
  let best = 0;
  for (let v = -half + 1; v < half; v++) {
    for (let u = 0; u < half; u++) {
      const radius = Math.hypot(u, v);
      if (radius < (SPECTRUM_MIN_BIN * n) / SPECTRUM_TILE_PX || radius > half) continue;
      // The file's own JPEG 8×8 block grid peaks at multiples of 1/8 cycle per pixel: not evidence.
      if (u % (n / 8) === 0 && v % (n / 8) === 0) continue;
      const here = at(u, v);
      let weakest = Infinity;
      for (const [du, dv] of [
        [1, 0],
        [0, 1],
        [1, 1],
        [1, -1],
      ]) {
        const around =
          (at(u + 2 * du, v + 2 * dv) + at(u + 3 * du, v + 3 * dv) + at(u - 2 * du, v - 2 * dv) + at(u - 3 * du, v - 3 * dv)) / 4;
        weakest = Math.min(weakest, here - around);
      }
      best = Math.max(best, weakest);
    }
  }
  return Math.round(best * 100) / 100;
}

/** Which of the face's sides have a frame edge, and the best coverage found on each. */
export interface FrameEvidence {
  /** How many of the four sides (above, below, left, right of the face) have an unbroken straight edge. */
  sides: number;
  /** Best coverage (0–1) of a straight edge on each side. */
  coverage: { top: number; bottom: number; left: number; right: number };
}

/**
 * Looks for the straight edge of a print or a screen on each side of the face: a line at most
 * `FRAME_MAX_TILT_DEG` from the image axes, clear of the face, whose edge pixels (one polarity,
 * within a pixel of the line) cover at least `FRAME_MIN_COVERAGE` of the span it must cross (the
 * face's extent grown by half on each end). See the module comment for why this separates.
 */
export function frameSides(image: Rgb, face: Box): FrameEvidence {
  const scale = Math.min(1, FRAME_ANALYSIS_SIDE_PX / Math.max(image.width, image.height));
  const width = Math.max(3, Math.round(image.width * scale));
  const height = Math.max(3, Math.round(image.height * scale));
  // Box-filtered downscale of the luminance.
  const full = luminance(image);
  const grey = new Float32Array(width * height);
  const counts = new Float32Array(width * height);
  for (let y = 0; y < image.height; y++) {
    const sy = Math.min(height - 1, Math.floor(y * scale));
    for (let x = 0; x < image.width; x++) {
      const sx = Math.min(width - 1, Math.floor(x * scale));
      grey[sy * width + sx] += full[y * image.width + x];
      counts[sy * width + sx] += 1;
    }
  }
  for (let i = 0; i < grey.length; i++) grey[i] /= Math.max(1, counts[i]);
  // Sobel gradients; edge maps by orientation (horizontal edges have a vertical gradient) and polarity.
  const horizontal = new Int8Array(width * height);
  const vertical = new Int8Array(width * height);
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const g = (dx: number, dy: number) => grey[(y + dy) * width + x + dx];
      const gx = (g(1, -1) + 2 * g(1, 0) + g(1, 1) - g(-1, -1) - 2 * g(-1, 0) - g(-1, 1)) / 4;
      const gy = (g(-1, 1) + 2 * g(0, 1) + g(1, 1) - g(-1, -1) - 2 * g(0, -1) - g(1, -1)) / 4;
      if (Math.hypot(gx, gy) < FRAME_EDGE_MIN_GRADIENT) continue;
      if (Math.abs(gy) >= 2 * Math.abs(gx)) horizontal[y * width + x] = gy > 0 ? 1 : -1;
      if (Math.abs(gx) >= 2 * Math.abs(gy)) vertical[y * width + x] = gx > 0 ? 1 : -1;
    }
  }
  const [fx, fy, fw, fh] = face.map((v) => v * scale);
  const maxSlope = Math.tan((FRAME_MAX_TILT_DEG * Math.PI) / 180);
  const slopes = Array.from({ length: 2 * FRAME_MAX_TILT_DEG + 1 }, (_, i) => Math.tan(((i - FRAME_MAX_TILT_DEG) * Math.PI) / 180));
  /**
   * Best coverage of a line `across = offset + slope * (along − start)` over `along` in [start, end),
   * whose `across` must stay on the far side of `limit` (`sign` −1: below it, +1: above it).
   */
  const best = (map: Int8Array, alongIsX: boolean, start: number, end: number, limit: number, sign: -1 | 1): number => {
    const alongMax = alongIsX ? width : height;
    const acrossMax = alongIsX ? height : width;
    const from = Math.max(1, Math.floor(start));
    const to = Math.min(alongMax - 1, Math.ceil(end));
    const span = Math.ceil(end) - Math.floor(start);
    if (to - from < span * FRAME_MIN_COVERAGE || span < 4) return 0;
    let top = 0;
    for (const slope of slopes) {
      if (Math.abs(slope) > maxSlope) continue;
      for (let offset = 1; offset < acrossMax - 1; offset++) {
        const acrossAt = (along: number) => offset + slope * (along - from);
        const nearest = sign < 0 ? Math.max(acrossAt(from), acrossAt(to)) : Math.min(acrossAt(from), acrossAt(to));
        if (sign < 0 ? nearest >= limit : nearest <= limit) continue;
        let positive = 0;
        let negative = 0;
        for (let along = from; along < to; along++) {
          const across = Math.round(acrossAt(along));
          if (across < 1 || across >= acrossMax - 1) continue;
          let seen = 0;
          for (let d = -1; d <= 1; d++) {
            const index = alongIsX ? (across + d) * width + along : along * width + across + d;
            if (map[index] !== 0) seen = map[index];
          }
          if (seen > 0) positive++;
          else if (seen < 0) negative++;
        }
        top = Math.max(top, Math.max(positive, negative) / span);
      }
    }
    return Math.round(top * 100) / 100;
  };
  const coverage = {
    top: best(horizontal, true, fx - fw / 2, fx + fw * 1.5, fy - fh * 0.15, -1),
    bottom: best(horizontal, true, fx - fw / 2, fx + fw * 1.5, fy + fh * 1.15, 1),
    left: best(vertical, false, fy - fh / 2, fy + fh * 1.5, fx - fw * 0.15, -1),
    right: best(vertical, false, fy - fh / 2, fy + fh * 1.5, fx + fw * 1.15, 1),
  };
  const sides = Object.values(coverage).filter((value) => value >= FRAME_MIN_COVERAGE).length;
  return { sides, coverage };
}

/** Colour and tone of a face and its surroundings. */
export interface ToneEvidence {
  /** Mean (R − B) / mean luminance over the inner face: skin reflects red far more than blue; a screen's or ink's cast lowers it. */
  skinRedMargin: number;
  /** 2nd percentile of luminance around the face (0–255): screens and prints cannot render black, so it rises. */
  blackLevel: number;
}

/** Measures `ToneEvidence` of the face `face` in `image`. */
export function tone(image: Rgb, face: Box): ToneEvidence {
  const [x, y, w, h] = face;
  let red = 0;
  let blue = 0;
  let light = 0;
  let count = 0;
  for (let py = Math.round(y + h * 0.25); py < Math.min(image.height, y + h * 0.75); py++) {
    for (let px = Math.round(x + w * 0.25); px < Math.min(image.width, x + w * 0.75); px++) {
      const i = (py * image.width + px) * 3;
      red += image.data[i];
      blue += image.data[i + 2];
      light += 0.299 * image.data[i] + 0.587 * image.data[i + 1] + 0.114 * image.data[i + 2];
      count++;
    }
  }
  const [gx, gy, gw, gh] = grow(face, 2, image.width, image.height);
  const histogram = new Array<number>(256).fill(0);
  let total = 0;
  for (let py = gy; py < gy + gh; py++) {
    for (let px = gx; px < gx + gw; px++) {
      const i = (py * image.width + px) * 3;
      histogram[Math.round(0.299 * image.data[i] + 0.587 * image.data[i + 1] + 0.114 * image.data[i + 2])]++;
      total++;
    }
  }
  let blackLevel = 0;
  for (let seen = 0; blackLevel < 255; blackLevel++) {
    seen += histogram[blackLevel];
    if (seen >= total * 0.02) break;
  }
  const skinRedMargin = count === 0 || light === 0 ? 0 : (red - blue) / light;
  return { skinRedMargin: Math.round(skinRedMargin * 1000) / 1000, blackLevel };
}

/** What a file says about the camera that made it. */
export interface MetadataEvidence {
  /** The EXIF names a camera make or model. */
  camera: boolean;
  /** The EXIF has a capture time (DateTimeOriginal). */
  captureTime: boolean;
}

/** Reads `MetadataEvidence` from the file's EXIF; an image without EXIF (or with unreadable EXIF) has neither. */
export async function cameraMetadata(bytes: Buffer): Promise<MetadataEvidence> {
  try {
    const { exif } = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
    if (!exif) return { camera: false, captureTime: false };
    const tags = exifReader(exif);
    return {
      camera: Boolean(tags.Image?.Make || tags.Image?.Model),
      captureTime: Boolean(tags.Photo?.DateTimeOriginal),
    };
  } catch {
    return { camera: false, captureTime: false };
  }
}

/** Rays cast from the face's centre when looking for a cut-out's rim. */
export const RIM_RAYS = 48;
/** How far out the rays look, in face radii (half the box's larger side): from the face's own edge to about its shoulders. */
export const RIM_SEARCH_RADII: readonly [number, number] = [0.75, 2.2];

/** What the rays found around the face. */
export interface RimEvidence {
  /** Share (0–1) of rays that cross a thin, bright, colourless ridge: the paper rim a cut-out keeps around the face. */
  ridgeShare: number;
  /** Share (0–1) of rays whose ridge lies at a radius close to its neighbours' (a closed outline, not scattered highlights). */
  closedShare: number;
}

/**
 * Looks for a cut-out's paper rim around the face: along `RIM_RAYS` rays from the face's centre,
 * a ridge at most a few pixels wide, brighter than the pixels a little inside and outside it and
 * nearly colourless (paper), and whether neighbouring rays find theirs at a similar radius, as
 * the outline of a cut piece of paper does. A white collar or a lamp crosses a few rays, not the
 * outline of a head.
 */
export function rimEvidence(image: Rgb, face: Box): RimEvidence {
  const [x, y, w, h] = face;
  const cx = x + w / 2;
  const cy = y + h / 2;
  const radius = Math.max(w, h) / 2;
  const step = 0.5;
  // Ridge width in pixels: the rim of a print seen at selfie distance is a few pixels wide at the analysis size.
  const side = Math.max(3, Math.round(radius / 25));
  const sample = (px: number, py: number): [number, number] => {
    const ix = Math.round(px);
    const iy = Math.round(py);
    if (ix < 0 || iy < 0 || ix >= image.width || iy >= image.height) return [-1, 0];
    const i = (iy * image.width + ix) * 3;
    const [r, g, b] = [image.data[i], image.data[i + 1], image.data[i + 2]];
    return [0.299 * r + 0.587 * g + 0.114 * b, Math.max(r, g, b) - Math.min(r, g, b)];
  };
  const radii: (number | null)[] = [];
  for (let k = 0; k < RIM_RAYS; k++) {
    const angle = (2 * Math.PI * k) / RIM_RAYS;
    const [dx, dy] = [Math.cos(angle), Math.sin(angle)];
    const profile: [number, number][] = [];
    for (let r = RIM_SEARCH_RADII[0] * radius - side * 2; r <= RIM_SEARCH_RADII[1] * radius + side * 2; r += step)
      profile.push(sample(cx + dx * r, cy + dy * r));
    let best: number | null = null;
    let bestContrast = 0;
    const reach = Math.round((side * 2) / step);
    for (let i = reach; i < profile.length - reach; i++) {
      const [light, chroma] = profile[i];
      if (light < 0 || chroma > 28 || light < 140) continue;
      const inside = profile[i - reach][0];
      const outside = profile[i + reach][0];
      if (inside < 0 || outside < 0) continue;
      const contrast = light - Math.max(inside, outside);
      if (contrast >= 20 && contrast > bestContrast) {
        bestContrast = contrast;
        best = RIM_SEARCH_RADII[0] * radius - side * 2 + i * step;
      }
    }
    radii.push(best);
  }
  const found = radii.filter((value) => value !== null).length;
  let closed = 0;
  for (let k = 0; k < RIM_RAYS; k++) {
    const here = radii[k];
    const next = radii[(k + 1) % RIM_RAYS];
    if (here !== null && next !== null && Math.abs(here - next) <= radius * 0.15) closed++;
  }
  return { ridgeShare: Math.round((found / RIM_RAYS) * 100) / 100, closedShare: Math.round((closed / RIM_RAYS) * 100) / 100 };
}
