/**
 * Document-portrait replays against genuine captures: `npm run bench:accuracy:face-replay`.
 *
 * Replays: for every real document specimen of `../shared/realdata/id` whose portrait the engine
 * finds (its largest face, as the document step keeps it), the portrait is cropped from the
 * document as a fraudster would (three margins), resized, slightly blurred or brightened and
 * re-encoded as JPEG, so the selfie is a crop, never the same bytes; each crop goes through the
 * selfie's analysis and is compared with the document's portrait. Genuine: every pair of photos of
 * the same person in `../shared/realdata/face`, except the pairs of one photograph at several sizes
 * or crops (the README names obama.jpg, obama-1080p, obama-240p and obama_small as one portrait;
 * obama_partial_face is a crop of it), which are copies, not two captures.
 * Printed: both distributions, and how many replays and genuine pairs reach the replay threshold
 * (src/engines/face/thresholds.ts `PORTRAIT_REPLAY_SIMILARITY`); the figures are in docs/face.md.
 * Then the selfie print of `selfie_reused` (src/duplicates/selfie-print.ts): every photo (these and
 * the human package's crops) re-encoded six ways against itself, and every pair of different
 * photos, in differing hash bits (docs/duplicates.md).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyzeFace, MAX_ANALYSIS_SIDE_PX, similarity } from '../../src/engines/face/analyze.js';
import sharp from 'sharp';
import { SELFIE_REUSE_MAX_HAMMING, selfiePrint } from '../../src/duplicates/selfie-print.js';
import { closeFaceEngine } from '../../src/engines/face/human.js';
import { isPortraitReplay } from '../../src/engines/face/replay.js';
import { PORTRAIT_REPLAY_SIMILARITY } from '../../src/engines/face/thresholds.js';
import { FACE_SAMPLES, faceSamplePng } from '../../test/support/face-samples.js';
import { portraitReplayCrops } from '../../test/support/portrait-replay.js';

const REALDATA_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/realdata');
/** Files of one photograph (README of realdata/face, and the partial crop of it). */
const ONE_PHOTOGRAPH = new Set([
  'obama__tests_test_images_obama.jpg',
  'obama__examples_obama-1080p.jpg',
  'obama__examples_obama-240p.jpg',
  'obama__examples_obama_small.jpg',
  'obama__tests_test_images_obama_partial_face.jpg',
]);

function summary(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(3) : '–');
  return `n ${values.length}  min ${at(0)}  p5 ${at(0.05)}  median ${at(0.5)}  p95 ${at(0.95)}  max ${at(1)}`;
}

const manifest = JSON.parse(readFileSync(join(REALDATA_DIR, 'id/manifest.json'), 'utf8')) as { file: string }[];
const replays: number[] = [];
let documentsWithPortrait = 0;
let cropsWithoutFace = 0;
for (const { file } of manifest) {
  const document = readFileSync(join(REALDATA_DIR, 'id', file));
  let portrait;
  try {
    portrait = await analyzeFace(document, { pick: 'largest' });
  } catch {
    continue; // no portrait the engine can describe: nothing the selfie step would compare with
  }
  documentsWithPortrait += 1;
  for (const crop of await portraitReplayCrops(document, portrait.box, MAX_ANALYSIS_SIDE_PX)) {
    try {
      const selfie = await analyzeFace(crop.bytes, { field: 'selfie', pick: 'only' });
      const value = similarity(selfie.embedding, portrait.embedding);
      replays.push(value);
      if (!isPortraitReplay(value)) console.log(`  NOT CAUGHT ${file} (${crop.name}): ${value.toFixed(4)}`);
    } catch {
      cropsWithoutFace += 1; // the selfie step refuses it with a 400 (no face): not a pass either
    }
  }
}

const faceDir = join(REALDATA_DIR, 'face');
const photos: { file: string; person: string; embedding: number[] }[] = [];
for (const file of readdirSync(faceDir).filter((name) => /\.(jpe?g|png)$/i.test(name))) {
  try {
    photos.push({ file, person: file.split('__')[0], embedding: (await analyzeFace(readFileSync(join(faceDir, file)))).embedding });
  } catch {
    console.log(`  ${file}: no describable face`);
  }
}
const genuine: number[] = [];
for (let i = 0; i < photos.length; i++) {
  for (let j = i + 1; j < photos.length; j++) {
    const [a, b] = [photos[i], photos[j]];
    if (a.person !== b.person || (ONE_PHOTOGRAPH.has(a.file) && ONE_PHOTOGRAPH.has(b.file))) continue;
    genuine.push(similarity(a.embedding, b.embedding));
  }
}

console.log(`replay threshold: similarity >= ${PORTRAIT_REPLAY_SIMILARITY}`);
console.log(
  `replays: ${documentsWithPortrait} documents with a portrait, ${replays.length} crops described (${cropsWithoutFace} crops showed no face)`,
);
console.log(`  similarity ${summary(replays)}`);
console.log(`  caught ${replays.filter(isPortraitReplay).length} of ${replays.length}`);
console.log(`genuine pairs (two captures of one person): ${summary(genuine)}`);
console.log(`  taken for a replay ${genuine.filter(isPortraitReplay).length} of ${genuine.length}`);
await closeFaceEngine();

/** Differing bits of two prints' hashes. */
function hammingDistance(a: string, b: string): number {
  let x = BigInt.asUintN(64, BigInt(a) ^ BigInt(b));
  let count = 0;
  for (; x; x >>= 1n) count += Number(x & 1n);
  return count;
}
const pictures = [
  ...(await Promise.all(FACE_SAMPLES.map((sample) => faceSamplePng(sample)))),
  ...readdirSync(faceDir).map((file) => readFileSync(join(faceDir, file))),
];
const copies: number[] = [];
const originals: string[] = [];
for (const picture of pictures) {
  const original = (await selfiePrint(picture))!.phash;
  originals.push(original);
  const { width = 0 } = await sharp(picture).metadata();
  for (const copy of [
    sharp(picture).jpeg({ quality: 88 }),
    sharp(picture).jpeg({ quality: 60 }),
    sharp(picture)
      .resize({ width: Math.round(width * 1.25) })
      .jpeg({ quality: 88 }),
    sharp(picture)
      .resize({ width: Math.round(width * 0.7) })
      .jpeg({ quality: 80 }),
    sharp(picture).webp({ quality: 80 }),
    sharp(picture).blur(0.6).jpeg(),
  ])
    copies.push(hammingDistance(original, (await selfiePrint(await copy.toBuffer()))!.phash));
}
const different: number[] = [];
for (let i = 0; i < originals.length; i++)
  for (let j = i + 1; j < originals.length; j++) different.push(hammingDistance(originals[i], originals[j]));
const histogram = (values: number[]) =>
  Object.entries(values.reduce<Record<number, number>>((counts, value) => ({ ...counts, [value]: (counts[value] ?? 0) + 1 }), {}))
    .map(([bits, count]) => `${bits}:${count}`)
    .join(' ');
console.log(`selfie prints (reused when <= ${SELFIE_REUSE_MAX_HAMMING} bits apart), ${pictures.length} pictures:`);
console.log(
  `  copies ${copies.length}, bits apart ${histogram(copies)}; reused ${copies.filter((bits) => bits <= SELFIE_REUSE_MAX_HAMMING).length}`,
);
console.log(
  `  different pictures ${different.length} pairs, lowest ${[...different]
    .sort((a, b) => a - b)
    .slice(0, 10)
    .join(' ')}; reused ${different.filter((bits) => bits <= SELFIE_REUSE_MAX_HAMMING).length}`,
);
