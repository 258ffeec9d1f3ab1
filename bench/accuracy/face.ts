/**
 * Face accuracy on real photos: `npm run bench:accuracy:face [-- --data <dir>]`.
 *
 * Every photo of `../shared/realdata/face` (13 single-face photos of 3 people; the file name starts
 * with the person, README there) goes through the live engine's analysis (`analyzeFace`: detection,
 * embedding, liveness). Then every pair is compared as the selfie step compares a selfie with the
 * document portrait, and the outcome read at today's thresholds (src/engines/face/thresholds.ts).
 * Printed: genuine pairs (same person, different files) passing, in review and failing; different-
 * person pairs passing (must be none); the similarity distributions; genuine photos failing or
 * reviewed by liveness; and the time per photo. Pairs of byte-identical files are not counted.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { analyzeFace, faceMatchOutcome, livenessOutcome, similarity } from '../../src/engines/face/analyze.js';
import { closeFaceEngine } from '../../src/engines/face/human.js';
import { FACE_MATCH_PASS_SIMILARITY, FACE_MATCH_REVIEW_SIMILARITY } from '../../src/engines/face/thresholds.js';

/** Where the development set lives unless `--data` says otherwise. */
const DEFAULT_DATA_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../../shared/realdata/face');
const dataDir = parseArgs({ options: { data: { type: 'string', default: DEFAULT_DATA_DIR } } }).values.data!;

/** One analysed photo. */
interface Photo {
  file: string;
  person: string;
  digest: string;
  embedding: number[] | null;
  liveness: string;
}

/** The value at `fraction` of sorted values. */
function quantile(sorted: number[], fraction: number): string {
  return sorted.length === 0 ? '–' : sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!.toFixed(3);
}

const files = readdirSync(dataDir)
  .filter((file) => /\.(jpe?g|png)$/i.test(file))
  .sort();
const photos: Photo[] = [];
let cpuMs = 0;
for (const file of files) {
  const bytes = readFileSync(join(dataDir, file));
  const started = process.cpuUsage();
  try {
    const analysis = await analyzeFace(bytes);
    photos.push({
      file,
      person: file.split('__')[0]!,
      digest: createHash('sha256').update(bytes).digest('hex'),
      embedding: analysis.embedding,
      liveness: livenessOutcome(analysis),
    });
  } catch (error) {
    photos.push({ file, person: file.split('__')[0]!, digest: '', embedding: null, liveness: `refused (${(error as Error).message})` });
  }
  const used = process.cpuUsage(started);
  cpuMs += (used.user + used.system) / 1000;
}
const genuine: number[] = [];
const impostor: number[] = [];
for (let i = 0; i < photos.length; i += 1) {
  for (let j = i + 1; j < photos.length; j += 1) {
    const a = photos[i]!;
    const b = photos[j]!;
    if (!a.embedding || !b.embedding || a.digest === b.digest) continue;
    (a.person === b.person ? genuine : impostor).push(similarity(a.embedding, b.embedding));
  }
}
const outcomes = (values: number[]) => {
  const counts = { passed: 0, review: 0, failed: 0 };
  for (const value of values) counts[faceMatchOutcome(value) as keyof typeof counts] += 1;
  return counts;
};
const genuineOutcomes = outcomes(genuine);
const impostorOutcomes = outcomes(impostor);
const percent = (part: number, whole: number) => `${whole === 0 ? 0 : ((100 * part) / whole).toFixed(1)} %`;
console.log(
  `face accuracy on ${dataDir}: ${photos.length} photos, thresholds pass ≥ ${FACE_MATCH_PASS_SIMILARITY}, review ≥ ${FACE_MATCH_REVIEW_SIMILARITY}`,
);
console.log(
  `genuine pairs ${genuine.length}: passed ${genuineOutcomes.passed} (${percent(genuineOutcomes.passed, genuine.length)}), review ${genuineOutcomes.review}, failed ${genuineOutcomes.failed}   (target ≥ 90 % passed)`,
);
console.log(
  `different-person pairs ${impostor.length}: passed ${impostorOutcomes.passed} (${percent(impostorOutcomes.passed, impostor.length)}), review ${impostorOutcomes.review}, failed ${impostorOutcomes.failed}   (target 0 passed)`,
);
for (const [name, values] of [
  ['genuine', genuine],
  ['different', impostor],
] as const) {
  const sorted = [...values].sort((a, b) => a - b);
  console.log(
    `  ${name.padEnd(9)} similarity min ${quantile(sorted, 0)}  p25 ${quantile(sorted, 0.25)}  median ${quantile(sorted, 0.5)}  p75 ${quantile(sorted, 0.75)}  max ${quantile(sorted, 1)}`,
  );
}
const notPassedLiveness = photos.filter((photo) => photo.liveness !== 'passed');
console.log(`liveness on these genuine photos: ${photos.length - notPassedLiveness.length} of ${photos.length} passed`);
for (const photo of notPassedLiveness) console.log(`  ${photo.file}: ${photo.liveness}`);
console.log(`CPU per photo: ${(cpuMs / Math.max(1, photos.length)).toFixed(0)} ms`);
await closeFaceEngine();
