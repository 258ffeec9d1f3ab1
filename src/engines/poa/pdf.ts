/**
 * PDF input: the text layer (unpdf), the scans embedded in image-only PDFs (pdf-lib), and a
 * structural tamper score. Nothing is rendered: an image-only PDF is read by OCR of the page
 * images it embeds, which covers scanner and phone-scan output (one JPEG or 8-bit bitmap per page).
 */
import { inflateSync } from 'node:zlib';
import { PDFDict, PDFDocument, PDFName, PDFNumber, PDFRawStream, type PDFPage } from 'pdf-lib';
import sharp from 'sharp';
import { extractText, getDocumentProxy } from 'unpdf';

/** Most pages read from a PDF: a proof of address is on its first pages. */
export const PDF_MAX_PAGES = 3;
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

/** Score added when the PDF has incremental updates (saved again after it was first written). */
export const PDF_REVISION_WEIGHT = 0.6;
/** Score added when the producer or creator is a PDF editor. */
export const PDF_EDITOR_WEIGHT = 0.4;

/** What a PDF yields. */
export interface PdfContent {
  /** Text layer of the first `PDF_MAX_PAGES` pages, pages separated by a blank line. */
  text: string;
  /** Page scans (JPEG or PNG bytes) of the first pages, largest per page; empty for text PDFs. */
  scans: Buffer[];
  /** Structural tamper score in [0, 1] (see `pdfStructureScore`). */
  structureScore: number;
}

/** Thrown when a PDF cannot be parsed at all; the caller turns it into a 400. */
export class UnreadablePdfError extends Error {
  override name = 'UnreadablePdfError';
}

/** Reads text, scans and structure of a PDF. */
export async function readPdf(bytes: Buffer): Promise<PdfContent> {
  let document: PDFDocument;
  try {
    document = await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: false });
  } catch (error) {
    throw new UnreadablePdfError(error instanceof Error ? error.message : String(error));
  }
  const text = await textLayer(bytes);
  const scans = text.replace(/\s+/g, '').length >= PDF_MIN_TEXT_CHARS ? [] : await pageScans(document);
  return { text, scans, structureScore: pdfStructureScore(bytes, document) };
}

async function textLayer(bytes: Buffer): Promise<string> {
  try {
    // unpdf takes ownership of (and detaches) the buffer it is given: pass a copy.
    const proxy = await getDocumentProxy(new Uint8Array(bytes));
    try {
      const { text } = await extractText(proxy, { mergePages: false });
      return text.slice(0, PDF_MAX_PAGES).join('\n\n');
    } finally {
      await proxy.destroy();
    }
  } catch (error) {
    throw new UnreadablePdfError(error instanceof Error ? error.message : String(error));
  }
}

/**
 * Structural tamper score: `PDF_REVISION_WEIGHT` when the file has more `%%EOF` markers than its
 * first save explains (one, two for a linearised file; files carrying a signature are exempt,
 * since signing appends a revision), plus `PDF_EDITOR_WEIGHT` when the producer or creator is
 * one of `PDF_EDITOR_PRODUCERS`; capped at 1. Dates are not used: every library that writes a
 * PDF sets its own modification date.
 */
export function pdfStructureScore(bytes: Buffer, document: PDFDocument): number {
  const raw = bytes.toString('latin1');
  const eofMarkers = raw.match(/%%EOF/g)?.length ?? 0;
  const linearised = /\/Linearized\s/.test(raw.slice(0, 2048));
  const signed = /\/ByteRange\s*\[/.test(raw);
  const revisions = eofMarkers - (linearised ? 2 : 1);
  let score = 0;
  if (revisions > 0 && !signed) score += PDF_REVISION_WEIGHT;
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
  if (bits !== 8 || channels === 0) return undefined;
  const raw = inflateSync(stream.contents);
  if (raw.length !== width * height * channels) return undefined;
  return sharp(raw, { raw: { width, height, channels } }).png().toBuffer();
}
