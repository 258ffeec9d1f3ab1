/**
 * Decoding and quality of a document photo. Quality is judged before OCR so that a photo that
 * cannot be read says so (`image_too_small`, `image_blurry`) instead of looking like a missing MRZ.
 */
import sharp from 'sharp';
import { fieldValidationError } from '../../shared/input-rules.js';
import { decodeDataUri, MAX_INPUT_PIXELS } from '../data-uri.js';

/** Formats a document photo may come in (the spec says JPEG; PNG costs nothing to accept). */
export const DOCUMENT_IMAGE_TYPES = ['image/jpeg', 'image/png'] as const;

/** Largest decoded document photo, in bytes (10 MB: a 12-megapixel phone JPEG fits). */
export const MAX_DOCUMENT_IMAGE_BYTES = 10 * 1024 * 1024;

/** Largest pixel count sharp may decode, so a small file cannot expand into a huge bitmap: the one cap of every engine. */
export const MAX_DOCUMENT_PIXELS = MAX_INPUT_PIXELS;

/**
 * Shorter side below which a document photo is too small to read, in pixels. Measured on the real
 * specimen set (docs/id-verification.md "Reading real photos"), with the reader upscaling small
 * photos: pages from 376×265 px up read correctly; at 268–282 px across, the smallest there, the
 * MRZ is at the limit (one of four read right; the others misread, most caught by check digits).
 * Below 250×150 px an MRZ character is under 5 px wide.
 */
export const MIN_SHORT_SIDE_PX = 150;

/** Longer side below which a document photo is too small to read, in pixels (see `MIN_SHORT_SIDE_PX`). */
export const MIN_LONG_SIDE_PX = 250;

/** Long side the blur metric is computed at, in pixels, so the threshold does not depend on the photo's size. */
export const BLUR_MEASURE_LONG_SIDE_PX = 1000;

/**
 * Variance of the Laplacian (grey levels², on a grey image scaled to `BLUR_MEASURE_LONG_SIDE_PX`)
 * below which a photo is too blurry. Measured on synthetic OCR-B pages (docs/id-verification.md):
 * sharp pages score 500–830, pages PaddleOCR still reads 37–400 (Gaussian blur σ≤2 with noise and
 * JPEG), blur σ=3 scores 7–8 and σ=4 about 3. Noise raises the score (σ=4 blur plus noise 10 scores
 * 58–127), so a noisy blurred photo passes this gate and fails later as `mrz_not_found`.
 */
export const MIN_LAPLACIAN_VARIANCE = 20;

/** A decoded document photo. */
export interface DocumentImage {
  /** Encoded bytes as sent. */
  bytes: Buffer;
  /** Pixel width after EXIF orientation. */
  widthPx: number;
  /** Pixel height after EXIF orientation. */
  heightPx: number;
  /** Grey levels at `BLUR_MEASURE_LONG_SIDE_PX` (one byte per pixel), from the one full decode. */
  grey: { data: Buffer; widthPx: number; heightPx: number };
}

/**
 * Decodes a `data:` URI into a document photo; every failure is a 400 naming `field`. The whole
 * image is decoded here (not just its header), so a truncated or corrupt file is refused up front.
 */
export async function decodeDocumentImage(value: unknown, field: string): Promise<DocumentImage> {
  const { bytes } = decodeDataUri(value, field, DOCUMENT_IMAGE_TYPES, MAX_DOCUMENT_IMAGE_BYTES);
  try {
    const { data, info } = await sharp(bytes, { limitInputPixels: MAX_DOCUMENT_PIXELS, failOn: 'truncated' })
      .rotate()
      .resize({ width: BLUR_MEASURE_LONG_SIDE_PX, height: BLUR_MEASURE_LONG_SIDE_PX, fit: 'inside' })
      .greyscale()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const metadata = await sharp(bytes, { limitInputPixels: MAX_DOCUMENT_PIXELS }).metadata();
    const rotated = (metadata.orientation ?? 1) >= 5;
    const grey = { data: info.channels === 1 ? data : firstChannel(data, info.channels), widthPx: info.width, heightPx: info.height };
    return { bytes, widthPx: rotated ? metadata.height : metadata.width, heightPx: rotated ? metadata.width : metadata.height, grey };
  } catch {
    const message = `${field} is not a readable JPEG or PNG image (or exceeds ${MAX_DOCUMENT_PIXELS} pixels)`;
    throw fieldValidationError(field, 'invalid_image', message);
  }
}

/** Keeps the first channel of interleaved pixels (sharp may keep an alpha channel beside grey). */
function firstChannel(data: Buffer, channels: number): Buffer {
  const out = Buffer.alloc(data.length / channels);
  for (let index = 0; index < out.length; index++) out[index] = data[index * channels];
  return out;
}

/** Variance of the 3×3 Laplacian of grey levels (one byte per pixel). */
export function laplacianVariance(grey: DocumentImage['grey']): number {
  const { data, widthPx: width, heightPx: height } = grey;
  let sum = 0;
  let sumSquares = 0;
  let count = 0;
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const at = y * width + x;
      const laplacian = data[at - 1] + data[at + 1] + data[at - width] + data[at + width] - 4 * data[at];
      sum += laplacian;
      sumSquares += laplacian * laplacian;
      count++;
    }
  }
  if (count === 0) return 0;
  const mean = sum / count;
  return sumSquares / count - mean * mean;
}

/** Why a photo cannot be read, or null when it is good enough. */
export type QualityProblem = 'image_too_small' | 'image_blurry';

/** The quality verdict of one photo. */
export interface ImageQuality {
  /** The first problem found, or null. */
  problem: QualityProblem | null;
  /** See `laplacianVariance`; 0 when the photo was too small to measure. */
  laplacianVariance: number;
}

/** Checks resolution, then blur. */
export async function assessQuality(image: DocumentImage): Promise<ImageQuality> {
  const shortSide = Math.min(image.widthPx, image.heightPx);
  const longSide = Math.max(image.widthPx, image.heightPx);
  if (shortSide < MIN_SHORT_SIDE_PX || longSide < MIN_LONG_SIDE_PX) return { problem: 'image_too_small', laplacianVariance: 0 };
  const variance = laplacianVariance(image.grey);
  return { problem: variance < MIN_LAPLACIAN_VARIANCE ? 'image_blurry' : null, laplacianVariance: variance };
}
