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
import { stripControlCharacters } from '../../validation.js';
import { decodingClientImage, MAX_INPUT_PIXELS } from '../data-uri.js';

/** Longest side an image is scaled to before OCR, in pixels: larger adds time, not accuracy. */
export const OCR_MAX_SIDE_PX = 2500;
/** Shortest width an image is scaled up to before OCR, in pixels: small text reads badly. */
export const OCR_MIN_WIDTH_PX = 1200;

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
 * Text of an image (any format sharp decodes). The image is turned upright from its EXIF
 * orientation, made grey and scaled into [OCR_MIN_WIDTH_PX, OCR_MAX_SIDE_PX] first.
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
  const { width, height } = info;
  const prepared = sharp(data, { raw: info });
  if (Math.max(width, height) > OCR_MAX_SIDE_PX) prepared.resize({ width: OCR_MAX_SIDE_PX, height: OCR_MAX_SIDE_PX, fit: 'inside' });
  else if (width < OCR_MIN_WIDTH_PX) prepared.resize({ width: OCR_MIN_WIDTH_PX });
  const png = await prepared.png().toBuffer();
  const result = await (await getWorker()).recognize(png);
  // OCR output is stored: no NUL or control characters may reach the database.
  return stripControlCharacters(result.data.text);
}

/** Ends the OCR worker, if one was started; safe to call more than once. */
export async function closeOcrWorker(): Promise<void> {
  const running = worker;
  worker = undefined;
  if (!running) return;
  await (await running.catch(() => undefined))?.terminate();
}
