/**
 * OCR of document images with tesseract.js, offline: the English LSTM model comes from the
 * `@tesseract.js-data/eng` package on disk (`4.0.0_best_int`), and `cacheMethod: 'none'` stops
 * tesseract.js from fetching or caching anything. One worker per process, created on first use,
 * reused (tesseract.js queues jobs on it), and ended by `closeOcrWorker` on shutdown.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import sharp from 'sharp';
import { createWorker, OEM, type Worker } from 'tesseract.js';
import { stripControlCharacters } from '../../shared/validation.js';
import { decodingClientImage, MAX_INPUT_PIXELS } from '../data-uri.js';
import { findPageQuad, warpPage } from './page-quad.js';

/** Longest side an image is scaled to before OCR, in pixels: larger adds time, not accuracy. */
export const OCR_MAX_SIDE_PX = 2500;
/** Shortest width an image is scaled up to before OCR, in pixels: small text reads badly. */
export const OCR_MIN_WIDTH_PX = 1200;

/** Largest skew corrected, in degrees either way: a hand-held photo of a page is rarely turned more. */
export const DESKEW_MAX_DEGREES = 10;
/** Step of the skew search, in degrees. */
export const DESKEW_STEP_DEGREES = 0.25;
/** Width the skew is measured at, in pixels: enough for text lines, cheap to project 80 times. */
const DESKEW_ANALYSIS_WIDTH_PX = 600;
/** Smallest skew worth a rotation, in degrees (tesseract reads less than this unaided). */
const DESKEW_MIN_DEGREES = 0.5;
/** Blur of the background estimate, as a share of the image's width: wider than a letter, narrower than a shadow. */
const BACKGROUND_BLUR_SHARE = 1 / 40;

/** Resolution tesseract is told the prepared images have, in dots per inch (a scanned page's usual). */
export const OCR_ASSUMED_DPI = 300;

const require = createRequire(import.meta.url);

/** Directory holding `eng.traineddata.gz` (LSTM-only, integer model: small and fast). */
function languageDirectory(): string {
  return path.join(path.dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');
}

let worker: Promise<Worker> | undefined;

/** The process's OCR worker, created on first call. */
function getWorker(): Promise<Worker> {
  worker ??= createWorker('eng', OEM.LSTM_ONLY, { langPath: languageDirectory(), cacheMethod: 'none', gzip: true })
    .then(async (created) => {
      // Scaled images carry no reliable DPI; without this tesseract guesses and warns on stderr.
      await created.setParameters({ user_defined_dpi: String(OCR_ASSUMED_DPI) });
      return created;
    })
    .catch((error: unknown) => {
      // A failed start must not poison every later call.
      worker = undefined;
      throw error;
    });
  return worker;
}

/**
 * Text of an image (any format sharp decodes), prepared as a phone photo needs: turned upright
 * from its EXIF orientation, made grey, lit evenly (`flattenLighting`), stretched to full
 * contrast, straightened (`skewDegrees`) and scaled into [OCR_MIN_WIDTH_PX, OCR_MAX_SIDE_PX].
 */
export async function recognizeText(image: Buffer): Promise<string> {
  const { data, info } = await decodingClientImage(() =>
    sharp(image, { failOn: 'error', limitInputPixels: MAX_INPUT_PIXELS })
      .rotate()
      .flatten({ background: '#ffffff' })
      .greyscale()
      .raw()
      .toBuffer({ resolveWithObject: true }),
  );
  const page = await pageOf(data, info.width, info.height);
  const { width, height } = page;
  const grey = { width, height, channels: 1 as const };
  const even = await flattenLighting(page.data, width, height);
  // Every step keeps one channel (`toColourspace('b-w')`): sharp would otherwise return sRGB after normalise or rotate.
  const stretched = await sharp(even, { raw: grey }).normalise().toColourspace('b-w').raw().toBuffer();
  const skew = await skewDegrees(stretched, width, height);
  let prepared = sharp(stretched, { raw: grey });
  if (Math.abs(skew) >= DESKEW_MIN_DEGREES) {
    // Rotating makes a new image; the resize below must see its size, so the rotation is applied first.
    const { data: rotated, info: rotatedInfo } = await prepared
      .rotate(-skew, { background: '#ffffff' })
      .toColourspace('b-w')
      .raw()
      .toBuffer({ resolveWithObject: true });
    prepared = sharp(rotated, { raw: rotatedInfo });
  }
  const { width: preparedWidth = width, height: preparedHeight = height } = await prepared.metadata();
  if (Math.max(preparedWidth, preparedHeight) > OCR_MAX_SIDE_PX)
    prepared.resize({ width: OCR_MAX_SIDE_PX, height: OCR_MAX_SIDE_PX, fit: 'inside' });
  else if (preparedWidth < OCR_MIN_WIDTH_PX) prepared.resize({ width: OCR_MIN_WIDTH_PX });
  const png = await prepared.png().toBuffer();
  const result = await (await getWorker()).recognize(png);
  // OCR output is stored: no NUL or control characters may reach the database.
  return stripControlCharacters(result.data.text);
}

/**
 * The page of a photo seen square-on (`findPageQuad`, `warpPage`) when its outline stands out
 * from the background; the image as it is otherwise (a scan, a crop, a page filling the frame).
 */
async function pageOf(grey: Buffer, width: number, height: number): Promise<{ data: Buffer; width: number; height: number }> {
  const corners = await findPageQuad(grey, width, height);
  return corners ? warpPage(grey, width, height, corners) : { data: grey, width, height };
}

/**
 * Even lighting: each pixel divided by a blurred copy of the image (the paper's brightness there),
 * so a shadow or a lamp on one side no longer decides which ink tesseract's global threshold keeps.
 */
async function flattenLighting(grey: Buffer, width: number, height: number): Promise<Buffer> {
  const sigma = Math.max(2, Math.round(width * BACKGROUND_BLUR_SHARE));
  const background = await sharp(grey, { raw: { width, height, channels: 1 } })
    .blur(sigma)
    .toColourspace('b-w')
    .raw()
    .toBuffer();
  const out = Buffer.alloc(grey.length);
  for (let i = 0; i < grey.length; i++) out[i] = Math.min(255, Math.round((255 * grey[i]) / Math.max(1, background[i])));
  return out;
}

/**
 * Skew of the text lines in degrees (positive: lines fall to the right), by projection profiles:
 * the ink pixels of a small copy are projected along each candidate angle in
 * ±DESKEW_MAX_DEGREES, and the angle whose row histogram is sharpest (largest sum of squared
 * differences between neighbouring rows: lines and gaps apart) wins. 0 for an image without ink.
 */
export async function skewDegrees(grey: Buffer, width: number, height: number): Promise<number> {
  const scale = Math.min(1, DESKEW_ANALYSIS_WIDTH_PX / width);
  const smallWidth = Math.max(1, Math.round(width * scale));
  const { data, info } = await sharp(grey, { raw: { width, height, channels: 1 } })
    .resize({ width: smallWidth })
    .toColourspace('b-w')
    .raw()
    .toBuffer({ resolveWithObject: true });
  const xs: number[] = [];
  const ys: number[] = [];
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      if (data[y * info.width + x] < 128) {
        xs.push(x);
        ys.push(y);
      }
    }
  }
  if (xs.length === 0) return 0;
  const margin = Math.ceil(info.width * Math.tan((DESKEW_MAX_DEGREES * Math.PI) / 180)) + 1;
  const rows = new Float64Array(info.height + 2 * margin);
  let best = { degrees: 0, sharpness: -1 };
  for (let degrees = -DESKEW_MAX_DEGREES; degrees <= DESKEW_MAX_DEGREES + 1e-9; degrees += DESKEW_STEP_DEGREES) {
    const slope = Math.tan((degrees * Math.PI) / 180);
    rows.fill(0);
    for (let k = 0; k < xs.length; k++) rows[Math.round(ys[k] - xs[k] * slope) + margin]++;
    let sharpness = 0;
    for (let r = 1; r < rows.length; r++) sharpness += (rows[r] - rows[r - 1]) ** 2;
    // Ties (a page without lines) keep the smallest turn.
    if (sharpness > best.sharpness * 1.0001 || (sharpness >= best.sharpness && Math.abs(degrees) < Math.abs(best.degrees))) {
      best = { degrees, sharpness };
    }
  }
  return Math.round(best.degrees * 100) / 100;
}

/** Ends the OCR worker, if one was started; safe to call more than once. */
export async function closeOcrWorker(): Promise<void> {
  const running = worker;
  worker = undefined;
  if (!running) return;
  await (await running.catch(() => undefined))?.terminate();
}
