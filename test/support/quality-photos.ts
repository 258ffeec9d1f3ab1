/**
 * Real photos for the hosted flow's photo checks (`src/web/hosted/quality-measure.ts`): every document
 * and face photo of `../shared/realdata`, decoded as the page would hold them, and genuinely bad
 * photos made from them (blurred, over-exposed, a glare spot, too dark, too small), shared by
 * `npm run bench:quality` and `test/hosted/quality.test.ts`.
 */
import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp, { type Sharp } from 'sharp';
import type { QualityProblem, QualitySubject, RgbaPixels } from '../../src/web/hosted/quality-measure.js';
import { UPLOAD_SIDE_PX } from '../../src/web/hosted/quality-measure.js';

/** Where the real-data development set lives (beside the project). */
export const REALDATA_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/realdata');

/** One photo of the set: its file, what it shows and its pixels. */
export interface QualityPhoto {
  name: string;
  subject: QualitySubject;
  /** The photo's own size (the too-small check reads it). */
  width: number;
  height: number;
  /** Its pixels as the page's canvas holds them: at most UPLOAD_SIDE_PX on the longer side. */
  pixels: RgbaPixels;
}

/** A bad photo made from a clean one, and the problem it must be warned about. */
export interface BadPhoto extends QualityPhoto {
  expected: QualityProblem;
}

/** The folders of real documents and faces, relative to REALDATA_DIR. */
const FOLDERS: Array<{ folder: string; subject: QualitySubject }> = [
  { folder: 'id/mrz-passporteye', subject: 'document' },
  { folder: 'id/mrz-fastmrz', subject: 'document' },
  { folder: 'face', subject: 'selfie' },
];

/** Decodes an image (EXIF rotation applied) to RGBA, scaled as the page's canvas scales it. */
export async function decodePhoto(input: string | Buffer, name: string, subject: QualitySubject): Promise<QualityPhoto> {
  const rotated = await sharp(input).rotate().toBuffer({ resolveWithObject: true });
  const { width, height } = rotated.info;
  const scale = Math.min(1, UPLOAD_SIDE_PX / Math.max(width, height));
  const { data, info } = await sharp(rotated.data)
    .resize({ width: Math.round(width * scale), height: Math.round(height * scale), fit: 'fill' })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { name, subject, width, height, pixels: { data: new Uint8ClampedArray(data), width: info.width, height: info.height } };
}

/** File names of the set, with what each shows. */
export function realPhotoFiles(): Array<{ file: string; name: string; subject: QualitySubject }> {
  return FOLDERS.flatMap(({ folder, subject }) =>
    readdirSync(join(REALDATA_DIR, folder))
      .filter((name) => /\.(jpe?g|png)$/i.test(name))
      .sort()
      .map((name) => ({ file: join(REALDATA_DIR, folder, name), name: `${folder}/${name}`, subject })),
  );
}

/** Every real document and face photo of the set, decoded. */
export async function realPhotos(only?: (name: string) => boolean): Promise<QualityPhoto[]> {
  const files = realPhotoFiles().filter(({ name }) => !only || only(name));
  return Promise.all(files.map(({ file, name, subject }) => decodePhoto(file, name, subject)));
}

/** A white spot with a soft edge, as a lamp's reflection on a laminated page, as an SVG overlay. */
function glareSpot(width: number, height: number): Buffer {
  const r = Math.round(Math.min(width, height) * 0.14);
  const cx = Math.round(width * 0.62);
  const cy = Math.round(height * 0.45);
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
      '<defs><radialGradient id="g"><stop offset="0" stop-color="#fff" stop-opacity="1"/>' +
      '<stop offset="0.45" stop-color="#fff" stop-opacity="1"/><stop offset="1" stop-color="#fff" stop-opacity="0"/></radialGradient></defs>' +
      `<ellipse cx="${cx}" cy="${cy}" rx="${Math.round(r * 1.4)}" ry="${r}" fill="url(#g)"/></svg>`,
  );
}

/** The ways a clean photo is spoiled, each with the problem it must raise. */
const SPOILERS: Array<{
  expected: QualityProblem;
  subjects: QualitySubject[];
  spoil: (image: Sharp, width: number, height: number) => Sharp;
}> = [
  // Out of focus or moved: Gaussian blur of σ 1 % of the longer side (at 640 px, σ 6.4 px).
  { expected: 'blurry', subjects: ['document', 'selfie'], spoil: (image, w, h) => image.blur(Math.max(w, h) * 0.01) },
  // Over-exposed: the sensor's gain tripled, everything above a third of the range clipped.
  { expected: 'too_bright', subjects: ['document', 'selfie'], spoil: (image) => image.linear(3, 40) },
  // Too dark: a fifth of the light (an unlit room).
  { expected: 'too_dark', subjects: ['document', 'selfie'], spoil: (image) => image.linear(0.2, 0) },
  // A reflection on the document.
  { expected: 'glare', subjects: ['document'], spoil: (image, w, h) => image.composite([{ input: glareSpot(w, h) }]) },
  // A thumbnail: 200 px on the longer side.
  { expected: 'too_small', subjects: ['document', 'selfie'], spoil: (image) => image.resize({ width: 200, height: 200, fit: 'inside' }) },
];

/** Bad photos made from the named clean ones, one per way of spoiling that applies, re-encoded as JPEG. */
export async function badPhotos(only: (name: string) => boolean): Promise<BadPhoto[]> {
  const bad: BadPhoto[] = [];
  for (const { file, name, subject } of realPhotoFiles().filter(({ name }) => only(name))) {
    const { data, info } = await sharp(file).rotate().toBuffer({ resolveWithObject: true });
    for (const { expected, subjects, spoil } of SPOILERS) {
      if (!subjects.includes(subject)) continue;
      const spoiled = await spoil(sharp(data), info.width, info.height).jpeg({ quality: 90 }).toBuffer();
      bad.push({ ...(await decodePhoto(spoiled, `${name} (${expected})`, subject)), expected });
    }
  }
  return bad;
}
