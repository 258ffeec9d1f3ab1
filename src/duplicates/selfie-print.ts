/**
 * What is kept of a selfie to recognise it when it is submitted again (docs/duplicates.md
 * "Reused selfies"): the SHA-256 of its bytes, and a 64-bit perceptual hash (pHash: the lowest
 * 8×8 frequencies of the DCT of a 32×32 grey thumbnail, one bit each, "above their median"),
 * which survives re-encoding, resizing and slight blur but differs between two photographs.
 * Never the image.
 */
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { MAX_INPUT_PIXELS } from '../engines/data-uri.js';

/**
 * Most differing hash bits for two selfies to count as one picture: re-encodes, resizes and blurs
 * of one picture measured at 0–6 bits, two different photographs at 12 or more (docs/duplicates.md).
 */
export const SELFIE_REUSE_MAX_HAMMING = 8;

/** A selfie's fingerprints. */
export interface SelfiePrint {
  /** Hex SHA-256 of the bytes as submitted. */
  sha256: string;
  /** The perceptual hash as a signed 64-bit integer (PostgreSQL `bigint`), in decimal. */
  phash: string;
}

/** Side of the grey thumbnail the DCT runs on, in pixels. */
const THUMBNAIL_SIDE_PX = 32;
/** Side of the block of lowest DCT frequencies that makes the hash (64 bits). */
const HASH_SIDE = 8;

/** cos((2x + 1) u π / 2N) for every x, u of the thumbnail: the DCT-II basis, computed once. */
const COSINES = Array.from({ length: HASH_SIDE }, (_, u) =>
  Float64Array.from({ length: THUMBNAIL_SIDE_PX }, (_, x) => Math.cos(((2 * x + 1) * u * Math.PI) / (2 * THUMBNAIL_SIDE_PX))),
);

/**
 * The 64-bit perceptual hash of grey pixels (`THUMBNAIL_SIDE_PX` squared): the 8×8 lowest
 * frequencies of their 2-D DCT, one bit per coefficient, "above the median of the 64".
 */
function dctHash(pixels: Uint8Array): bigint {
  const n = THUMBNAIL_SIDE_PX;
  // Rows first (only the first HASH_SIDE frequencies are needed), then columns.
  const rows = Array.from({ length: n }, (_, y) =>
    COSINES.map((basis) => {
      let sum = 0;
      for (let x = 0; x < n; x++) sum += pixels[y * n + x] * basis[x];
      return sum;
    }),
  );
  const coefficients: number[] = [];
  for (let v = 0; v < HASH_SIDE; v++) {
    for (let u = 0; u < HASH_SIDE; u++) {
      let sum = 0;
      for (let y = 0; y < n; y++) sum += rows[y][u] * COSINES[v][y];
      coefficients.push(sum);
    }
  }
  const median = [...coefficients].sort((a, b) => a - b)[coefficients.length / 2];
  let hash = 0n;
  for (const coefficient of coefficients) hash = (hash << 1n) | (coefficient > median ? 1n : 0n);
  return hash;
}

/** The fingerprints of a selfie's bytes, or null when they do not decode (the face step has refused it already). */
export async function selfiePrint(bytes: Buffer): Promise<SelfiePrint | null> {
  let pixels: Buffer;
  try {
    pixels = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS })
      .rotate()
      .grayscale()
      .resize(THUMBNAIL_SIDE_PX, THUMBNAIL_SIDE_PX, { fit: 'fill' })
      .raw()
      .toBuffer();
  } catch {
    return null;
  }
  const hash = dctHash(new Uint8Array(pixels.buffer, pixels.byteOffset, pixels.byteLength));
  return { sha256: createHash('sha256').update(bytes).digest('hex'), phash: BigInt.asIntN(64, hash).toString() };
}
