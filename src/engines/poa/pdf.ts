/**
 * PDF input: the text layer (unpdf), the scans embedded in image-only PDFs (pdf-lib), and a
 * structural tamper score. Nothing is rendered: an image-only PDF is read by OCR of the page
 * images it embeds, which covers scanner and phone-scan output (one JPEG or 8-bit bitmap per page).
 */
import { inflateSync } from 'node:zlib';
import { PDFDict, PDFDocument, PDFName, PDFNumber, PDFRawStream, type PDFPage } from 'pdf-lib';
import sharp from 'sharp';
import { getDocumentProxy } from 'unpdf';
import { stripControlCharacters } from '../../shared/validation.js';
import { MAX_INPUT_PIXELS } from '../data-uri.js';
import { assertDecodedSizeWithinLimit, PdfDecodeLimitError } from './pdf-decode-budget.js';
import { layoutPage, type DocumentLayout, type PositionedItem } from './layout.js';
import { PDF_MAX_DECODED_BYTES, PdfLimitError, UnreadablePdfError } from './pdf-errors.js';

/** Most pages read from a PDF: a proof of address is on its first pages. */
export const PDF_MAX_PAGES = 3;
/**
 * Most pages a PDF may have at all, known from its page tree before any page is parsed: a bill or
 * statement has a few; ten thousand pages sharing one content stream is a denial of service.
 */
export const PDF_MAX_ACCEPTED_PAGES = 50;
/** Fewest characters of text layer for a PDF to count as text rather than scanned. */
export const PDF_MIN_TEXT_CHARS = 20;
/** Smallest embedded image worth OCR, in pixels (smaller ones are logos). */
export const PDF_MIN_SCAN_PIXELS = 250_000;

/**
 * Producers and creators of PDF editors (lower case, matched as substrings): a bill re-saved by
 * one of these was edited after it left the issuer. Issuers' own tools are not listed.
 */
export const PDF_EDITOR_PRODUCERS: readonly string[] = [
  'pdfescape',
  'sejda',
  'ilovepdf',
  'smallpdf',
  'pdf-xchange editor',
  'phantompdf',
  'foxit pdf editor',
  'pdfelement',
  'pdffiller',
  'dochub',
  'inkscape',
  'pdf candy',
  'soda pdf',
];

/**
 * Score added when the PDF has incremental updates (saved again after it was first written) that
 * change or remove text its first save had on the pages read: a name or amount rewritten.
 */
export const PDF_REVISION_WEIGHT = 0.6;
/**
 * Score added when the incremental updates only add (a note, a filled form field, a stamp, new
 * metadata): viewers, archiving systems and issuers' own mail pipelines save genuine bills this
 * way, so on its own it stays below `TAMPER_REVIEW_SCORE`; with an editor producer it reaches it.
 */
export const PDF_ADDITIVE_REVISION_WEIGHT = 0.2;
/** Score added when the producer or creator is a PDF editor. */
export const PDF_EDITOR_WEIGHT = 0.4;

/** What a PDF yields. */
export interface PdfContent {
  /** Text layer of the first `PDF_MAX_PAGES` pages as visual rows (cells separated by a tab), pages separated by a blank line. */
  text: string;
  /** The same text as rows of cells and blocks (see layout.ts), for rules that read a value beside or below its label, an address window or a letterhead. */
  layout: DocumentLayout;
  /** Page scans (JPEG or PNG bytes) of the first pages, largest per page; empty for text PDFs. */
  scans: Buffer[];
  /** Structural tamper score in [0, 1] (see `pdfStructureScore`). */
  structureScore: number;
}

/** The message of anything thrown, for UnreadablePdfError. */
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Reads text, scans and structure of a PDF. The page count is checked first (a byte scan), then
 * what every stream decodes to through all its filters (at most `maxDecodedBytes` together), and
 * only then do pdf-lib and pdf.js parse it, reading the first `PDF_MAX_PAGES` pages; extracted
 * text is cleaned of NUL and control characters. Run it in the PDF worker (pdf-worker.ts), which
 * also bounds its time and memory.
 */
export async function readPdf(bytes: Buffer, maxDecodedBytes = PDF_MAX_DECODED_BYTES): Promise<PdfContent> {
  // A byte scan first: counting page objects costs milliseconds where either parser spends seconds on ten thousand pages.
  const pageObjects = countPageObjects(bytes);
  if (pageObjects > PDF_MAX_ACCEPTED_PAGES)
    throw new PdfLimitError(`it has ${pageObjects} pages; at most ${PDF_MAX_ACCEPTED_PAGES} are accepted`);
  try {
    await assertDecodedSizeWithinLimit(bytes, maxDecodedBytes);
  } catch (error) {
    if (error instanceof PdfDecodeLimitError) throw new PdfLimitError(error.message);
    throw error;
  }
  let document: PDFDocument;
  try {
    document = await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: false });
  } catch (error) {
    throw new UnreadablePdfError(messageOf(error));
  }
  let proxy: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // unpdf takes ownership of (and detaches) the buffer it is given: pass a copy.
    proxy = await getDocumentProxy(new Uint8Array(bytes));
  } catch (error) {
    throw new UnreadablePdfError(messageOf(error));
  }
  try {
    // Page objects hidden in compressed object streams escape the byte scan; the page tree's count does not.
    if (proxy.numPages > PDF_MAX_ACCEPTED_PAGES)
      throw new PdfLimitError(`it has ${proxy.numPages} pages; at most ${PDF_MAX_ACCEPTED_PAGES} are accepted`);
    const { text, layout } = await textLayer(proxy);
    const scans = text.replace(/\s+/g, '').length >= PDF_MIN_TEXT_CHARS ? [] : await pageScans(document);
    const firstSave = firstSaveLength(bytes);
    // A scan has no text to compare: an update that swapped the page image would look additive.
    const changes =
      firstSave === undefined ? 'none' : scans.length > 0 ? 'rewritten' : await revisionChanges(bytes.subarray(0, firstSave), text);
    return { text, layout, scans, structureScore: pdfStructureScore(bytes, document, changes) };
  } finally {
    await proxy.destroy();
  }
}

/**
 * Length of the file as its first save wrote it (up to the first `%%EOF`, the second for a
 * linearised file), or undefined when nothing was appended or the appended revision is a
 * signature (signing appends a revision by design).
 */
function firstSaveLength(bytes: Buffer): number | undefined {
  const raw = bytes.toString('latin1');
  if (/\/ByteRange\s*\[/.test(raw)) return undefined;
  const markers = [...raw.matchAll(/%%EOF/g)].map((match) => match.index + '%%EOF'.length);
  const firstSave = /\/Linearized\s/.test(raw.slice(0, 2048)) ? 2 : 1;
  return markers.length > firstSave ? markers[firstSave - 1] : undefined;
}

/** Words of a text with their counts, for comparing two revisions. */
function wordCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const word of text.split(/\s+/)) if (word) counts.set(word, (counts.get(word) ?? 0) + 1);
  return counts;
}

/**
 * What the incremental updates did to the text of the pages read: `rewritten` when a word of the
 * first save is gone from the final text (or the first save cannot be read, so nothing vouches
 * for it), `added` otherwise. Only the text is compared: an update that swaps an image of a text
 * PDF (a logo, a stamp) counts as `added`; scanned PDFs are not compared at all (`rewritten`). The
 * first save is a prefix of a file whose every stream already passed the decode budget.
 */
async function revisionChanges(firstSave: Buffer, finalText: string): Promise<'added' | 'rewritten'> {
  try {
    const proxy = await getDocumentProxy(new Uint8Array(firstSave));
    try {
      if (proxy.numPages > PDF_MAX_ACCEPTED_PAGES) return 'rewritten';
      const { text } = await textLayer(proxy);
      const remaining = wordCounts(finalText);
      for (const [word, count] of wordCounts(text)) if ((remaining.get(word) ?? 0) < count) return 'rewritten';
      return 'added';
    } finally {
      await proxy.destroy();
    }
  } catch (error) {
    if (error instanceof PdfLimitError) throw error;
    return 'rewritten';
  }
}

/** How many page objects (`/Type /Page`, not `/Pages`) the file's uncompressed part declares. */
function countPageObjects(bytes: Buffer): number {
  return bytes.toString('latin1').match(/\/Type\s*\/Page(?![A-Za-z])/g)?.length ?? 0;
}

/**
 * Text of the first `PDF_MAX_PAGES` pages, laid out as a reader sees it (layout.ts): rows with
 * tab-separated cells, pages separated by a blank line, and the blocks. NUL and control
 * characters are removed from every item first (a real bill's text layer carried NULs).
 */
async function textLayer(proxy: Awaited<ReturnType<typeof getDocumentProxy>>): Promise<{ text: string; layout: DocumentLayout }> {
  const pages: string[] = [];
  const layout: DocumentLayout = { rows: [], blocks: [] };
  try {
    for (let number = 1; number <= Math.min(proxy.numPages, PDF_MAX_PAGES); number++) {
      const page = await proxy.getPage(number);
      const content = await page.getTextContent();
      const items: PositionedItem[] = content.items.flatMap((item) =>
        'str' in item
          ? [{ str: stripControlCharacters(item.str), transform: item.transform as number[], width: item.width, height: item.height }]
          : [],
      );
      const laid = layoutPage(items, page.view[3] - page.view[1], number);
      pages.push(laid.rows.map((cells) => cells.map((cell) => cell.text).join('\t')).join('\n'));
      layout.rows.push(...laid.rows);
      layout.blocks.push(...laid.blocks);
    }
  } catch (error) {
    throw new UnreadablePdfError(messageOf(error));
  }
  return { text: pages.join('\n\n'), layout };
}

/**
 * Structural tamper score: `PDF_REVISION_WEIGHT` when incremental updates rewrote text of the
 * first save, `PDF_ADDITIVE_REVISION_WEIGHT` when they only added (`changes`, see
 * `revisionChanges`; files carrying a signature count as `none`, since signing appends a
 * revision), plus `PDF_EDITOR_WEIGHT` when the producer or creator is one of
 * `PDF_EDITOR_PRODUCERS`; capped at 1. `changes` defaults to what the `%%EOF` markers show, read
 * as `rewritten` when there are more than the first save explains. Dates are not used: every
 * library that writes a PDF sets its own modification date.
 */
export function pdfStructureScore(bytes: Buffer, document: PDFDocument, changes?: 'none' | 'added' | 'rewritten'): number {
  const revision = changes ?? (firstSaveLength(bytes) === undefined ? 'none' : 'rewritten');
  let score = revision === 'rewritten' ? PDF_REVISION_WEIGHT : revision === 'added' ? PDF_ADDITIVE_REVISION_WEIGHT : 0;
  const tools = `${document.getProducer() ?? ''} ${document.getCreator() ?? ''}`.toLowerCase();
  if (PDF_EDITOR_PRODUCERS.some((editor) => tools.includes(editor))) score += PDF_EDITOR_WEIGHT;
  return Math.min(1, Math.round(score * 100) / 100);
}

/** The largest decodable image of each of the first pages, as JPEG or PNG bytes. */
async function pageScans(document: PDFDocument): Promise<Buffer[]> {
  const scans: Buffer[] = [];
  for (const page of document.getPages().slice(0, PDF_MAX_PAGES)) {
    const images = pageImages(page).sort((a, b) => b.width * b.height - a.width * a.height);
    for (const image of images) {
      if (image.width * image.height < PDF_MIN_SCAN_PIXELS) break;
      const decoded = await decodeImage(image).catch(() => undefined);
      if (!decoded) continue;
      scans.push(decoded);
      break;
    }
  }
  return scans;
}

interface EmbeddedImage {
  stream: PDFRawStream;
  width: number;
  height: number;
}

/** Image XObjects drawn directly on a page (not nested in forms). */
function pageImages(page: PDFPage): EmbeddedImage[] {
  const xObjects = page.node.Resources()?.lookupMaybe(PDFName.of('XObject'), PDFDict);
  if (!xObjects) return [];
  const out: EmbeddedImage[] = [];
  for (const [, ref] of xObjects.entries()) {
    const stream = page.doc.context.lookup(ref);
    if (!(stream instanceof PDFRawStream)) continue;
    if (stream.dict.get(PDFName.of('Subtype')) !== PDFName.of('Image')) continue;
    const width = stream.dict.lookupMaybe(PDFName.of('Width'), PDFNumber)?.asNumber() ?? 0;
    const height = stream.dict.lookupMaybe(PDFName.of('Height'), PDFNumber)?.asNumber() ?? 0;
    out.push({ stream, width, height });
  }
  return out;
}

/** JPEG streams as they are; 8-bit grey or RGB Flate streams without predictor re-encoded as PNG; anything else undefined. */
async function decodeImage({ stream, width, height }: EmbeddedImage): Promise<Buffer | undefined> {
  const filter = stream.dict.get(PDFName.of('Filter'));
  if (filter === PDFName.of('DCTDecode')) return Buffer.from(stream.contents);
  if (filter !== PDFName.of('FlateDecode') || stream.dict.get(PDFName.of('DecodeParms'))) return undefined;
  const bits = stream.dict.lookupMaybe(PDFName.of('BitsPerComponent'), PDFNumber)?.asNumber();
  const space = stream.dict.get(PDFName.of('ColorSpace'));
  const channels = space === PDFName.of('DeviceRGB') ? 3 : space === PDFName.of('DeviceGray') ? 1 : 0;
  if (bits !== 8 || channels === 0 || width * height > MAX_INPUT_PIXELS) return undefined;
  // Exactly the declared bitmap may come out: a larger stream is not an image we can use.
  const raw = inflateSync(stream.contents, { maxOutputLength: width * height * channels });
  if (raw.length !== width * height * channels) return undefined;
  return sharp(raw, { raw: { width, height, channels }, limitInputPixels: MAX_INPUT_PIXELS }).png().toBuffer();
}
