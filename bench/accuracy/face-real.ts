/**
 * Face match error rates on real photos of many people: `npm run bench:accuracy:face-real -- --calibration <dir>[,<dir>] --evaluation <dir>[,<dir>]`.
 *
 * Each folder holds photos of several people, several each: the person is read from `labels.tsv`
 * (`file<TAB>person`) when the folder has one, else from the file name (what comes before `__`, or
 * the name without its trailing digits). Every photo goes through the engine's detection, then is
 * described by each embedding variant (faceapi.ts `DescribeOptions`: face-api's own cut, the
 * five-point chip, the five-point chip with its mirror). Every pair of photos in a set is compared
 * (byte-identical files skipped); people of different folders are different people.
 *
 * For each variant, the pass and review thresholds are placed on the calibration photos only
 * (pass: just above the highest different-person pair there, review: at the lowest same-person
 * pair there, never above pass) and applied unchanged to the evaluation photos: printed are FMR and
 * FNMR with the number of pairs at those thresholds, at the engine's thresholds, and the curve
 * (FNMR at FMR 10⁻², 10⁻³, 0, and FMR at several thresholds) so the variants can be compared in one
 * run. The development set (`../shared/realdata/face`) is the default calibration set.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { decodeRgb, l2Normalize, similarity } from '../../src/engines/face/analyze.js';
import { describeFaceAt, fitSimilarity, type DescribeOptions } from '../../src/engines/face/faceapi.js';
import { landmarksInImage } from '../../src/engines/face/aligned-crop.js';
import * as ort from 'onnxruntime-node';
import { closeFaceEngine, withHuman } from '../../src/engines/face/human.js';
import { FACE_MATCH_PASS_SIMILARITY, FACE_MATCH_REVIEW_SIMILARITY } from '../../src/engines/face/thresholds.js';

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    calibration: { type: 'string', default: resolve(here, '../../../shared/realdata/face') },
    evaluation: { type: 'string' },
    /** Keep the photos' embeddings in this JSON file and reuse them on the next run (same folders, same code). */
    cache: { type: 'string' },
    /**
     * An ArcFace-style ONNX embedding model (input `[1, 3, 112, 112]`, RGB, (x − 127) / 128, five
     * points warped to insightface's 112 px template) to measure as one more variant, run by
     * onnxruntime-node; e.g. `model/fr_feature.onnx` of the npm package faceplugin-face-recognition-js.
     */
    'onnx-model': { type: 'string' },
  },
});

/** The variants measured, the engine's first. */
const VARIANTS: { name: string; options: DescribeOptions }[] = [
  { name: 'face-api cut (before)', options: { alignment: 'face-api', flip: false } },
  { name: 'five-point chip', options: { alignment: 'five-point', flip: false } },
  { name: 'five-point chip + mirror', options: { alignment: 'five-point', flip: true } },
];

/** insightface's five-point template for 112 px ArcFace chips: eye centres, nose tip, mouth corners. */
const ARCFACE_TEMPLATE = [
  [38.2946, 51.6963],
  [73.5318, 51.5014],
  [56.0252, 71.7366],
  [41.5493, 92.3655],
  [70.7299, 92.2041],
] as const;
const onnxSession = values['onnx-model'] ? await ort.InferenceSession.create(values['onnx-model']) : null;
if (onnxSession) VARIANTS.push({ name: `ONNX ${values['onnx-model']}`, options: { alignment: 'five-point', flip: false } });

/** The ONNX model's embedding of the face whose 68 landmarks (image pixels) are given. */
async function onnxEmbedding(tf: any, input: any, points: { x: number; y: number }[]): Promise<number[]> {
  const mean = (from: number[]) => ({
    x: from.reduce((s, i) => s + points[i]!.x, 0) / from.length,
    y: from.reduce((s, i) => s + points[i]!.y, 0) / from.length,
  });
  // The five points as insightface reads them from 68 landmarks.
  const five = [mean([36, 37, 38, 39, 40, 41]), mean([42, 43, 44, 45, 46, 47]), points[30]!, points[48]!, points[54]!];
  const { a, b, tx, ty } = fitSimilarity(
    ARCFACE_TEMPLATE.map(([x, y]) => ({ x, y })),
    five,
  );
  const chip = tf.tidy(() => {
    const batch = tf.expandDims(tf.cast(input, 'float32'), 0);
    return tf.squeeze(tf.image.transform(batch, [[a, -b, tx, b, a, ty, 0, 0]], 'bilinear', 'constant', 0, [112, 112]), [0]);
  });
  const hwc = (await chip.data()) as Float32Array;
  chip.dispose();
  const chw = new Float32Array(3 * 112 * 112);
  for (let i = 0; i < 112 * 112; i++) for (let c = 0; c < 3; c++) chw[c * 112 * 112 + i] = (hwc[i * 3 + c]! - 127) / 128;
  const output = await onnxSession!.run({ [onnxSession!.inputNames[0]!]: new ort.Tensor('float32', chw, [1, 3, 112, 112]) });
  return l2Normalize(output[onnxSession!.outputNames[0]!]!.data as Float32Array);
}

interface Photo {
  set: string;
  file: string;
  person: string;
  digest: string;
  /** One embedding per variant, null when that variant found no face. */
  embeddings: (number[] | null)[];
}

function personOf(file: string, labels: Map<string, string> | null): string | undefined {
  if (labels) return labels.get(file);
  const stem = file.replace(/\.[^.]+$/, '');
  return stem.includes('__') ? stem.split('__')[0] : stem.replace(/[-_ ]*\d+$/, '');
}

async function analyseFolder(dir: string): Promise<Photo[]> {
  const labelsFile = join(dir, 'labels.tsv');
  const labels = existsSync(labelsFile)
    ? new Map(
        readFileSync(labelsFile, 'utf8')
          .split('\n')
          .filter((line) => line.trim() !== '')
          .map((line) => line.split('\t') as [string, string]),
      )
    : null;
  const photos: Photo[] = [];
  for (const file of readdirSync(dir)
    .filter((name) => /\.(jpe?g|png|webp)$/i.test(name))
    .sort()) {
    const person = personOf(file, labels);
    if (!person) continue;
    const bytes = readFileSync(join(dir, file));
    const { pixels, width, height } = await decodeRgb(bytes, 'image');
    const embeddings = await withHuman(async (human) => {
      const input = human.tf.tensor3d(pixels, [height, width, 3], 'int32');
      try {
        const result = await human.detect(input);
        const faces = [...result.face].sort((a, b) => b.box[2] * b.box[3] - a.box[2] * a.box[3]);
        const out: (number[] | null)[] = [];
        for (const variant of VARIANTS) {
          const described = faces[0] ? await describeFaceAt(human.tf, input, { width, height }, faces[0].box, variant.options) : null;
          if (variant.name.startsWith('ONNX')) {
            out.push(
              described
                ? await onnxEmbedding(human.tf, input, landmarksInImage({ box: faces[0]!.box, landmarks: described.landmarks }))
                : null,
            );
          } else out.push(described ? l2Normalize(described.descriptor) : null);
        }
        return out;
      } finally {
        input.dispose();
      }
    });
    photos.push({ set: dir, file, person: `${dir}:${person}`, digest: createHash('sha256').update(bytes).digest('hex'), embeddings });
  }
  return photos;
}

interface Scores {
  genuine: number[];
  impostor: number[];
  /** Photos without an embedding (their pairs are left out). */
  undescribed: number;
}

function scores(photos: Photo[], variant: number): Scores {
  const genuine: number[] = [];
  const impostor: number[] = [];
  for (let i = 0; i < photos.length; i++) {
    for (let j = i + 1; j < photos.length; j++) {
      const [a, b] = [photos[i]!, photos[j]!];
      if (a.digest === b.digest) continue;
      const [ea, eb] = [a.embeddings[variant], b.embeddings[variant]];
      if (!ea || !eb) continue;
      (a.person === b.person ? genuine : impostor).push(similarity(ea, eb));
    }
  }
  return { genuine, impostor, undescribed: photos.filter((photo) => !photo.embeddings[variant]).length };
}

/** "k/n (rate)" */
function rate(count: number, total: number): string {
  return `${count}/${total} (${total === 0 ? '–' : ((100 * count) / total).toFixed(2)} %)`;
}

/** FNMR at the lowest threshold where FMR ≤ `fmr` (pairs strictly above the threshold pass). */
function fnmrAtFmr(s: Scores, fmr: number): string {
  const impostors = [...s.impostor].sort((a, b) => b - a);
  const allowed = Math.floor(fmr * impostors.length);
  const threshold = allowed < impostors.length ? impostors[allowed]! : -1;
  const rejected = s.genuine.filter((value) => value <= threshold).length;
  return `${rate(rejected, s.genuine.length)} @${threshold.toFixed(3)}`;
}

/** FMR (pairs at or above) and FNMR (pairs below) at a few thresholds: the curve docs/face.md records. */
function byThreshold(s: Scores): string {
  const thresholds = [0.88, 0.9, 0.91, 0.92, 0.925, 0.93, 0.935, 0.94, 0.95];
  return thresholds
    .map(
      (t) =>
        `${t}: ${s.impostor.filter((x) => x >= t).length}/${s.impostor.length} · ${s.genuine.filter((x) => x < t).length}/${s.genuine.length}`,
    )
    .join('; ');
}

function outcome(s: Scores, pass: number, review: number): string {
  const gPass = s.genuine.filter((v) => v >= pass).length;
  const gReview = s.genuine.filter((v) => v >= review && v < pass).length;
  const iPass = s.impostor.filter((v) => v >= pass).length;
  const iReview = s.impostor.filter((v) => v >= review && v < pass).length;
  return (
    `same person: passed ${rate(gPass, s.genuine.length)}, review ${gReview}, failed ${s.genuine.length - gPass - gReview} → FNMR (not passed) ${rate(s.genuine.length - gPass, s.genuine.length)}; ` +
    `different people: passed ${iPass} → FMR ${rate(iPass, s.impostor.length)}, review ${rate(iReview, s.impostor.length)}`
  );
}

const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(`load average at start: ${load()}`);
const started = Date.now();
const cached: Record<string, Photo[]> = values.cache && existsSync(values.cache) ? JSON.parse(readFileSync(values.cache, 'utf8')) : {};
async function folder(dir: string): Promise<Photo[]> {
  const path = resolve(dir);
  cached[path] ??= await analyseFolder(path);
  return cached[path];
}
const calibration: Photo[] = [];
for (const dir of values.calibration!.split(',')) calibration.push(...(await folder(dir)));
const evaluation: Photo[] = [];
for (const dir of values.evaluation?.split(',') ?? []) evaluation.push(...(await folder(dir)));
if (values.cache) writeFileSync(values.cache, JSON.stringify(cached));
const people = (photos: Photo[]) => new Set(photos.map((photo) => photo.person)).size;
console.log(
  `calibration: ${calibration.length} photos of ${people(calibration)} people; evaluation: ${evaluation.length} photos of ${people(evaluation)} people; ` +
    `${((Date.now() - started) / 1000).toFixed(0)} s for ${VARIANTS.length} variants`,
);

for (let v = 0; v < VARIANTS.length; v++) {
  const cal = scores(calibration, v);
  // Pass just above the highest different-person pair of the calibration set; review from its lowest same-person pair.
  const pass = Math.ceil((Math.max(...cal.impostor) + 0.0005) * 1000) / 1000;
  const review = Math.min(pass, Math.floor(Math.min(...cal.genuine) * 1000) / 1000);
  console.log(`\n## ${VARIANTS[v]!.name}`);
  console.log(
    `calibration: ${cal.genuine.length} same-person and ${cal.impostor.length} different-person pairs, ${cal.undescribed} photos undescribed; ` +
      `same min ${Math.min(...cal.genuine).toFixed(3)}, different max ${Math.max(...cal.impostor).toFixed(3)} → pass ≥ ${pass.toFixed(3)}, review ≥ ${review.toFixed(3)}`,
  );
  console.log(`calibration at those thresholds: ${outcome(cal, pass, review)}`);
  console.log(
    `calibration curve: FNMR at FMR ≤ 1e-2: ${fnmrAtFmr(cal, 1e-2)}; at FMR ≤ 1e-3: ${fnmrAtFmr(cal, 1e-3)}; at FMR 0: ${fnmrAtFmr(cal, 0)}`,
  );
  console.log(`calibration FMR · FNMR by threshold: ${byThreshold(cal)}`);
  if (evaluation.length === 0) continue;
  const ev = scores(evaluation, v);
  console.log(`evaluation (${ev.undescribed} photos undescribed) at calibration thresholds: ${outcome(ev, pass, review)}`);
  if (v === 0)
    console.log(
      `evaluation at the engine's thresholds (${FACE_MATCH_PASS_SIMILARITY}/${FACE_MATCH_REVIEW_SIMILARITY}): ${outcome(ev, FACE_MATCH_PASS_SIMILARITY, FACE_MATCH_REVIEW_SIMILARITY)}`,
    );
  console.log(
    `evaluation curve: FNMR at FMR ≤ 1e-2: ${fnmrAtFmr(ev, 1e-2)}; at FMR ≤ 1e-3: ${fnmrAtFmr(ev, 1e-3)}; at FMR 0: ${fnmrAtFmr(ev, 0)}; ` +
      `same min ${Math.min(...ev.genuine).toFixed(3)}, different max ${Math.max(...ev.impostor).toFixed(3)}`,
  );
  console.log(`evaluation FMR · FNMR by threshold: ${byThreshold(ev)}`);
}
console.log(`\nload average at end: ${load()}`);
await closeFaceEngine();
