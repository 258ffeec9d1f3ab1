/**
 * Reads the 2D barcodes a document photo carries (PDF417 on US and Canadian licences, QR and Data
 * Matrix on documents with a visible digital seal) with zxing-wasm, the WebAssembly build of
 * ZXing-C++. Its `.wasm` is loaded from node_modules, never from the CDN the package defaults to.
 * The photo is decoded by sharp (already our image library) into RGBA, so every format the
 * document step accepts reaches the decoder the same way.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import sharp, { type Sharp } from 'sharp';
import { prepareZXingModule, readBarcodes, type ReadResult, type ReaderOptions } from 'zxing-wasm/reader';

/** Barcode formats documents carry. */
export const DOCUMENT_BARCODE_FORMATS = ['PDF417', 'QRCode', 'DataMatrix'] as const;
/** One of them. */
export type DocumentBarcodeFormat = (typeof DOCUMENT_BARCODE_FORMATS)[number];

/** A barcode read from a photo. */
export interface DecodedBarcode {
  format: DocumentBarcodeFormat;
  /** The symbol's bytes as encoded (AAMVA and VDS are byte payloads, not text). */
  bytes: Buffer;
  /** The decoder's text rendering (for QR codes that carry text). */
  text: string;
}

/**
 * Longest side a photo is decoded at, in pixels: a licence back photographed at 12 MP holds a
 * PDF417 whose modules stay several pixels wide at this size, and decoding time grows with area.
 */
export const BARCODE_DECODE_MAX_SIDE_PX = 2400;

/**
 * Shortest side below which a photo is enlarged before a second pass: a PDF417 module under about
 * 1.5 px is lost to the binariser, and twice the size recovers small, low-resolution captures.
 */
export const BARCODE_UPSCALE_BELOW_PX = 700;

let prepared = false;

/** Points zxing-wasm at the `.wasm` in node_modules (once per thread); it would fetch it from jsDelivr otherwise. */
function prepare(): void {
  if (prepared) return;
  const require = createRequire(import.meta.url);
  const wasm = readFileSync(require.resolve('zxing-wasm/reader/zxing_reader.wasm'));
  prepareZXingModule({
    overrides: { wasmBinary: wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer },
  });
  prepared = true;
}

const READER_OPTIONS: ReaderOptions = {
  formats: [...DOCUMENT_BARCODE_FORMATS],
  tryHarder: true,
  tryRotate: true,
  tryInvert: false,
  tryDownscale: true,
  maxNumberOfSymbols: 4,
};

async function decodeRgba(image: Sharp): Promise<ReadResult[]> {
  const { data, info } = await image.flatten({ background: '#ffffff' }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const imageData = {
    data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength),
    width: info.width,
    height: info.height,
    colorSpace: 'srgb' as const,
  };
  return readBarcodes(imageData as unknown as Parameters<typeof readBarcodes>[0], READER_OPTIONS);
}

/** Side of the greyscale copy the skew is estimated on, in pixels: enough for bar edges, cheap to scan. */
const SKEW_ESTIMATE_SIDE_PX = 800;

/** Skews smaller than this, in degrees, are left to the decoder (it reads them as they are). */
export const MIN_DESKEW_DEGREES = 1.5;

/**
 * The photo's dominant skew in degrees (−45 to 45, clockwise positive): the peak of the edge
 * orientation histogram, folded modulo 90° so that a PDF417's vertical bar edges and the card's
 * horizontal text edges vote for the same angle. ZXing-C++'s PDF417 detector reads symbols
 * turned by a multiple of 90° but loses them a few degrees off (measured in the bench: none read
 * at 5° or 15°), so a photo it finds nothing in is turned straight and read again.
 */
export async function estimateSkewDegrees(image: Sharp): Promise<number> {
  const { data, info } = await image
    .clone()
    .greyscale()
    .resize({ width: SKEW_ESTIMATE_SIDE_PX, height: SKEW_ESTIMATE_SIDE_PX, fit: 'inside', withoutEnlargement: true })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const { width, height } = info;
  const bins = new Float64Array(180);
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const at = y * width + x;
      const gx =
        data[at + 1 - width] + 2 * data[at + 1] + data[at + 1 + width] - data[at - 1 - width] - 2 * data[at - 1] - data[at - 1 + width];
      const gy =
        data[at + width - 1] +
        2 * data[at + width] +
        data[at + width + 1] -
        data[at - width - 1] -
        2 * data[at - width] -
        data[at - width + 1];
      const magnitude = Math.abs(gx) + Math.abs(gy);
      if (magnitude < 200) continue;
      // Orientation folded into [0°, 90°) in half-degree bins.
      const degrees = ((Math.atan2(gy, gx) * 180) / Math.PI + 360) % 90;
      bins[Math.floor(degrees * 2) % 180] += magnitude;
    }
  }
  // The peak, smoothed over ±1 bin so a skew between two bins is not split.
  let best = 0;
  let bestScore = -1;
  for (let bin = 0; bin < 180; bin++) {
    const score = bins[(bin + 179) % 180] + bins[bin] + bins[(bin + 1) % 180];
    if (score > bestScore) [best, bestScore] = [bin, score];
  }
  const angle = best / 2 + 0.25;
  return angle >= 45 ? angle - 90 : angle;
}

/**
 * Every PDF417, QR code and Data Matrix in a photo (in any rotation), valid symbols only. A photo
 * whose first pass finds nothing is turned straight when it is skewed, and a small one is read at
 * twice the size.
 */
export async function readDocumentBarcodes(photo: Buffer): Promise<DecodedBarcode[]> {
  prepare();
  const source = sharp(photo, { failOn: 'none' }).rotate();
  const { width = 0, height = 0 } = await source.metadata();
  const base =
    Math.max(width, height) > BARCODE_DECODE_MAX_SIDE_PX
      ? sharp(
          await source
            .clone()
            .resize({ width: BARCODE_DECODE_MAX_SIDE_PX, height: BARCODE_DECODE_MAX_SIDE_PX, fit: 'inside' })
            .png()
            .toBuffer(),
        )
      : source.clone();
  let results = (await decodeRgba(base)).filter((result) => result.isValid);
  if (results.length === 0) {
    const skew = await estimateSkewDegrees(base);
    if (Math.abs(skew) >= MIN_DESKEW_DEGREES) {
      const straight = sharp(await base.clone().rotate(-skew, { background: '#ffffff' }).png().toBuffer());
      results = (await decodeRgba(straight)).filter((result) => result.isValid);
    }
  }
  if (results.length === 0 && Math.min(width, height) < BARCODE_UPSCALE_BELOW_PX && Math.max(width, height) <= BARCODE_DECODE_MAX_SIDE_PX) {
    const upscaled = source.clone().resize({ width: width * 2, height: height * 2, kernel: 'lanczos3' });
    results = (await decodeRgba(upscaled)).filter((result) => result.isValid);
  }
  return results.map((result) => ({
    format: result.format as DocumentBarcodeFormat,
    bytes: Buffer.from(result.bytes),
    text: result.text,
  }));
}
