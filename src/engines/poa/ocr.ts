/**
 * OCR of document images with tesseract.js, offline: the English LSTM model comes from the
 * `@tesseract.js-data/eng` package on disk (`4.0.0_best_int`), and `cacheMethod: 'none'` stops
 * tesseract.js from fetching or caching anything. One worker per process, created on first use,
 * reused (tesseract.js queues jobs on it), and ended by `closeOcrWorker` on shutdown.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import sharp from 'sharp';
import { createWorker, OEM, PSM, type Block, type Rectangle, type Worker } from 'tesseract.js';
import { stripControlCharacters } from '../../shared/validation.js';
import { decodingClientImage, MAX_INPUT_PIXELS } from '../data-uri.js';
import { layoutOfWords, type DocumentLayout, type OcrWord } from './layout.js';
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
      // Automatic page segmentation: tesseract's own default (one uniform block) runs a bill's columns into each other.
      await created.setParameters({ user_defined_dpi: String(OCR_ASSUMED_DPI), tessedit_pageseg_mode: PSM.AUTO });
      return created;
    })
    .catch((error: unknown) => {
      // A failed start must not poison every later call.
      worker = undefined;
      throw error;
    });
  return worker;
}

/** What OCR read from an image: its text and the same text laid out by the words' positions. */
export interface RecognizedPage {
  /** The text as tesseract writes it (its own reading order), control characters removed. */
  text: string;
  /** Rows and blocks rebuilt from the words' boxes (`layoutOfWords`), as the PDF path lays out its text items. */
  layout: DocumentLayout;
}

/**
 * Text of an image (any format sharp decodes), prepared as a phone photo needs (`prepareForOcr`),
 * with its layout: tesseract's plain text runs columns into each other (a remittance stub beside
 * the addressee's window, a table beside a heading), so the words' boxes are laid out again by
 * the rules the PDF path uses (layout.ts), and the field rules see the same kind of blocks.
 * `page` (from 1) numbers the page in a document of several scans.
 */
export async function recognizeText(image: Buffer, page = 1): Promise<RecognizedPage> {
  const { text, words, height } = await readWords(await prepareForOcr(image));
  return { text, layout: layoutOfWords(words, height, page) };
}

/**
 * Text and words of a prepared page (`prepareForOcr`): one recognition with automatic page
 * segmentation, then the lines it ran together re-read region by region (`mergedLineRegions`),
 * their words replacing the first reading's there.
 */
export async function readWords(png: Buffer): Promise<{ text: string; words: OcrWord[]; width: number; height: number }> {
  const { width = 0, height = 0 } = await sharp(png).metadata();
  const ocr = await getWorker();
  // The worker is shared and its page segmentation mode changes for the re-reads: one page at a time.
  return exclusively(async () => {
    const result = await ocr.recognize(png, {}, { text: true, blocks: true });
    const lines = linesOf(result.data.blocks ?? []);
    let words = lines.flatMap((line) => line.words);
    const regions = mergedLineRegions(lines, width, height);
    if (regions.length > 0) {
      // A region is one column's few lines: read as one block, not segmented again.
      await ocr.setParameters({ tessedit_pageseg_mode: PSM.SINGLE_BLOCK });
      try {
        for (const region of regions) {
          const reread = linesOf((await ocr.recognize(png, { rectangle: region }, { blocks: true })).data.blocks ?? []);
          const inRegion = reread.flatMap((line) => line.words).filter((word) => inside(word, region));
          const before = words.filter((word) => inside(word, region));
          // A region read worse alone (a logo, a barcode) keeps its first reading.
          if (confidenceOf(inRegion) < confidenceOf(before)) continue;
          words = [...words.filter((word) => !inside(word, region)), ...inRegion];
        }
      } finally {
        await ocr.setParameters({ tessedit_pageseg_mode: PSM.AUTO });
      }
    }
    // OCR output is stored: no NUL or control characters may reach the database.
    return { text: stripControlCharacters(result.data.text), words, width, height };
  });
}

let queue: Promise<unknown> = Promise.resolve();

/** Runs `task` after every task queued before it has settled. */
function exclusively<T>(task: () => Promise<T>): Promise<T> {
  const run = queue.then(task, task);
  queue = run.catch(() => undefined);
  return run;
}

/** A line tesseract found, with its words. */
interface OcrLine {
  box: OcrWord['box'];
  words: OcrWord[];
}

/** The lines of tesseract's blocks, each with its words (box, confidence, the line's baseline and height). */
function linesOf(blocks: readonly Block[]): OcrLine[] {
  const lines: OcrLine[] = [];
  for (const block of blocks) {
    for (const paragraph of block.paragraphs) {
      for (const line of paragraph.lines) {
        const words: OcrWord[] = [];
        for (const word of line.words) {
          const text = stripControlCharacters(word.text).trim();
          if (text.length === 0) continue;
          words.push({
            text,
            box: word.bbox,
            confidence: word.confidence,
            baseline: line.baseline,
            lineHeight: line.rowAttributes.rowHeight,
          });
        }
        if (words.length > 0) lines.push({ box: line.bbox, words });
      }
    }
  }
  return lines;
}

/** Whether a word's centre lies in a region. */
function inside(word: OcrWord, region: Rectangle): boolean {
  const x = (word.box.x0 + word.box.x1) / 2;
  const y = (word.box.y0 + word.box.y1) / 2;
  return x >= region.left && x < region.left + region.width && y >= region.top && y < region.top + region.height;
}

/** Mean confidence of words, each weighted by its length; 0 for none. */
function confidenceOf(words: readonly OcrWord[]): number {
  const characters = words.reduce((sum, word) => sum + word.text.length, 0);
  return characters === 0 ? 0 : words.reduce((sum, word) => sum + word.confidence * word.text.length, 0) / characters;
}

/** Whether a box and a region share any area. */
function overlaps(box: OcrWord['box'], region: Rectangle): boolean {
  return box.x0 < region.left + region.width && box.x1 > region.left && box.y0 < region.top + region.height && box.y1 > region.top;
}

/** A line this many times taller than the page's median line is several lines run together. */
export const MERGED_LINE_HEIGHT_RATIO = 1.8;
/** Words of such a line further apart than this many median line heights belong to different columns. */
export const MERGED_LINE_COLUMN_GAP = 3;
/** Most regions re-read per page: each costs a recognition of its own. */
export const MAX_REREAD_REGIONS = 8;

/**
 * Regions to read again on their own: tesseract's line finder runs a text column into whatever
 * lies level with it across the page (an address window beside a postal barcode or a logo),
 * and the line it makes is much taller than the page's text lines (`MERGED_LINE_HEIGHT_RATIO`)
 * and reads as noise. Each such line is cut at its wide gaps (`MERGED_LINE_COLUMN_GAP`), and
 * each piece, with a margin, is re-read alone, where its lines come apart again.
 */
function mergedLineRegions(lines: readonly OcrLine[], width: number, height: number): Rectangle[] {
  const heights = lines.map((line) => line.box.y1 - line.box.y0).sort((a, b) => a - b);
  const median = heights[Math.floor(heights.length / 2)] ?? 0;
  if (median <= 0) return [];
  const regions: Rectangle[] = [];
  for (const line of lines) {
    if (line.box.y1 - line.box.y0 <= MERGED_LINE_HEIGHT_RATIO * median) continue;
    const words = [...line.words].sort((a, b) => a.box.x0 - b.box.x0);
    const pieces: OcrWord[][] = [];
    for (const word of words) {
      const piece = pieces.at(-1);
      if (piece && word.box.x0 - Math.max(...piece.map((other) => other.box.x1)) <= MERGED_LINE_COLUMN_GAP * median) piece.push(word);
      else pieces.push([word]);
    }
    // A line that is one piece has nothing beside it to be confused with: its height is its own.
    // A line within a region already chosen is read again with that region (regions must not overlap:
    // each replaces the words of the first reading in it).
    if (pieces.length < 2 || regions.some((region) => overlaps(line.box, region))) continue;
    // Each piece's region reaches halfway to its neighbours, so lines of its column longer than this line are read whole.
    const margin = Math.round(median);
    const top = Math.max(0, line.box.y0 - margin);
    const bottom = Math.min(height, line.box.y1 + margin);
    for (const [k, piece] of pieces.entries()) {
      const left = k === 0 ? 0 : Math.round((Math.max(...pieces[k - 1].map((word) => word.box.x1)) + piece[0].box.x0) / 2);
      const right =
        k === pieces.length - 1 ? width : Math.round((Math.max(...piece.map((word) => word.box.x1)) + pieces[k + 1][0].box.x0) / 2);
      if (right > left && bottom > top) regions.push({ left, top, width: right - left, height: bottom - top });
    }
  }
  return regions.slice(0, MAX_REREAD_REGIONS);
}

/**
 * An image (any format sharp decodes) as a PNG ready for OCR: turned upright from its EXIF
 * orientation, made grey, the page found and seen square-on (`pageOf`), lit evenly
 * (`flattenLighting`), stretched to full contrast, straightened (`skewDegrees`) and scaled into
 * [OCR_MIN_WIDTH_PX, OCR_MAX_SIDE_PX].
 */
export async function prepareForOcr(image: Buffer): Promise<Buffer> {
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
  return prepared.png().toBuffer();
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
