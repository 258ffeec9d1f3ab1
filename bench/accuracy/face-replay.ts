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
 * The second signal, the aligned face crops compared as images (src/engines/face/aligned-crop.ts,
 * `PORTRAIT_REPLAY_CROP_CORRELATION`), is measured on the same replays plus three perturbed ones per
 * document (noise, a 7° turn, a gamma and saturation change: copies whose embedding moves), and on
 * the genuine pairs of both sets: the development set's and the human package's crops of one man.
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
import { isPortraitReplay, portraitReplaySignal } from '../../src/engines/face/portrait-replay.js';
import { PORTRAIT_REPLAY_CROP_CORRELATION, PORTRAIT_REPLAY_SIMILARITY } from '../../src/engines/face/thresholds.js';
import { alignedCrop, cropCorrelation } from '../../src/engines/face/aligned-crop.js';
import { decodeUpright } from '../../src/engines/recapture-evidence.js';
import { prng } from '../../test/support/prng.js';
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

/** A face's embedding and aligned crop, as the face engine compares them. */
async function described(bytes: Buffer, field = 'image') {
  const face = await analyzeFace(bytes, { field, pick: field === 'selfie' ? 'only' : 'largest' });
  return { embedding: face.embedding, crop: alignedCrop(await decodeUpright(bytes, MAX_ANALYSIS_SIDE_PX), face) };
}

/** Copies of a replay crop perturbed so that the embedding moves: noise, a turn, a tone change. */
async function perturbed(crop: Buffer, seed: number): Promise<{ name: string; bytes: Buffer }[]> {
  const { width = 0, height = 0 } = await sharp(crop).metadata();
  const random = prng(seed);
  const noise = Buffer.from(Array.from({ length: width * height * 3 }, () => 128 + Math.round((random() - 0.5) * 60)));
  const overlay = await sharp(noise, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
  return [
    {
      name: 'noise',
      bytes: await sharp(crop)
        .composite([{ input: overlay, blend: 'overlay' }])
        .jpeg({ quality: 60 })
        .toBuffer(),
    },
    {
      name: 'turned 7°',
      bytes: await sharp(crop).rotate(7, { background: '#808080' }).resize({ width: 400 }).jpeg({ quality: 80 }).toBuffer(),
    },
    {
      name: 'gamma',
      bytes: await sharp(crop).gamma(2.2).modulate({ saturation: 0.5 }).sharpen({ sigma: 2 }).jpeg({ quality: 70 }).toBuffer(),
    },
  ];
}

const crops: { correlation: number; cosine: number; perturbed: boolean }[] = [];
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
  const portraitCrop = alignedCrop(await decodeUpright(document, MAX_ANALYSIS_SIDE_PX), portrait);
  const made = await portraitReplayCrops(document, portrait.box, MAX_ANALYSIS_SIDE_PX);
  for (const crop of [...made, ...(await perturbed(made[0]!.bytes, documentsWithPortrait)).map((copy) => ({ ...copy, perturbed: true }))]) {
    try {
      const selfie = await described(crop.bytes, 'selfie');
      const value = similarity(selfie.embedding, portrait.embedding);
      const correlation = cropCorrelation(selfie.crop, portraitCrop);
      const isPerturbed = 'perturbed' in crop;
      crops.push({ correlation, cosine: value, perturbed: isPerturbed });
      if (!isPerturbed) replays.push(value);
      if (!isPortraitReplay(value, correlation))
        console.log(`  NOT CAUGHT ${file} (${crop.name}): similarity ${value.toFixed(4)}, crop correlation ${correlation.toFixed(3)}`);
    } catch {
      cropsWithoutFace += 1; // the selfie step refuses it with a 400 (no face): not a pass either
    }
  }
}

const faceDir = join(REALDATA_DIR, 'face');
const photos: { file: string; person: string; embedding: number[]; crop: number[] | null; sample: boolean }[] = [];
for (const file of readdirSync(faceDir).filter((name) => /\.(jpe?g|png)$/i.test(name))) {
  try {
    photos.push({ file, person: file.split('__')[0], sample: false, ...(await described(readFileSync(join(faceDir, file)))) });
  } catch {
    console.log(`  ${file}: no describable face`);
  }
}
for (const sample of FACE_SAMPLES.filter((candidate) => candidate.identity === 'author')) {
  try {
    photos.push({ file: sample.name, person: 'human-author', sample: true, ...(await described(await faceSamplePng(sample))) });
  } catch {
    console.log(`  ${sample.name}: no describable face`);
  }
}
const genuine: number[] = [];
const genuineCrops: { correlation: number; cosine: number; pair: string }[] = [];
for (let i = 0; i < photos.length; i++) {
  for (let j = i + 1; j < photos.length; j++) {
    const [a, b] = [photos[i], photos[j]];
    if (a.person !== b.person || (ONE_PHOTOGRAPH.has(a.file) && ONE_PHOTOGRAPH.has(b.file))) continue;
    const cosine = similarity(a.embedding, b.embedding);
    if (!a.sample) genuine.push(cosine);
    genuineCrops.push({ correlation: cropCorrelation(a.crop, b.crop), cosine, pair: `${a.file} ~ ${b.file}` });
  }
}

console.log(`replay threshold: similarity >= ${PORTRAIT_REPLAY_SIMILARITY}`);
console.log(
  `replays: ${documentsWithPortrait} documents with a portrait, ${replays.length} crops described (${cropsWithoutFace} crops showed no face)`,
);
console.log(`  similarity ${summary(replays)}`);
console.log(`  caught ${replays.filter(isPortraitReplay).length} of ${replays.length}`);
console.log(`genuine pairs (two captures of one person): ${summary(genuine)}`);
console.log(`  taken for a replay ${genuine.filter((value) => isPortraitReplay(value)).length} of ${genuine.length}`);
console.log(
  `aligned face crops (second signal: correlation >= ${PORTRAIT_REPLAY_CROP_CORRELATION} with similarity >= the review threshold):`,
);
const plain = crops.filter((crop) => !crop.perturbed);
const moved = crops.filter((crop) => crop.perturbed);
console.log(`  replay crops ${summary(plain.map((crop) => crop.correlation))}`);
console.log(`  perturbed replays ${summary(moved.map((crop) => crop.correlation))}`);
console.log(
  `    similarity below ${PORTRAIT_REPLAY_SIMILARITY}: ${moved.filter((crop) => crop.cosine < PORTRAIT_REPLAY_SIMILARITY).length} of ${moved.length}, of which caught by the crops ${moved.filter((crop) => crop.cosine < PORTRAIT_REPLAY_SIMILARITY && portraitReplaySignal(crop.cosine, crop.correlation) === 'aligned_crop').length}`,
);
console.log(
  `    caught by either signal ${moved.filter((crop) => isPortraitReplay(crop.cosine, crop.correlation)).length} of ${moved.length}`,
);
console.log(`  genuine pairs (both sets, ${genuineCrops.length}) ${summary(genuineCrops.map((pair) => pair.correlation))}`);
const flagged = genuineCrops.filter((pair) => portraitReplaySignal(pair.cosine, pair.correlation) === 'aligned_crop');
console.log(
  `    taken for a replay by the crops ${flagged.length} of ${genuineCrops.length}${flagged.map((pair) => `; ${pair.pair}`).join('')}`,
);
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
