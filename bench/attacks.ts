/**
 * Presentation-attack and face-match rates on the development sets: `npm run bench:attacks
 * [-- --variant A|B|C|all] [--only faces|documents|extra] [--out <dir>] [--extra-genuine <dir>]
 * [--real-attacks <dir>]`. Each image's outcome is printed as it is
 * judged, with the signals that spoke, and the rates at the end, each beside the baseline: the same
 * measures judged without the re-capture model (`recapture_model`, src/engines/face/pad-model.ts),
 * so before and after come from one run.
 *
 * Bona fide: every photo of `../shared/realdata/face`, as sent and as a phone would upload it
 * (720 px wide, JPEG q75, no EXIF). Attacks: each photo printed, shown on a screen and cut out
 * by generator variants A and B (bench/attacks/generate.ts: the calibration set) and by family C
 * (bench/attacks/generate-im.ts: made with ImageMagick by other printer, screen and cut-out models,
 * other scenes; the measurement set, never calibrated on), and each ID specimen of
 * `../shared/realdata/id` re-captured from a screen and from a print by the same generators.
 * Also printed: the PAD's own time per selfie (decode and every signal, the re-capture model
 * included, human's models excluded).
 * Printed, in ISO/IEC 30107-3 terms:
 * - selfies: APCER per attack kind (attacks whose liveness passed, i.e. accepted as bona fide) and
 *   BPCER (genuine photos whose liveness failed), with reviews and undetected faces apart;
 * - documents: share of re-captures flagged `document_recapture`, and of genuine specimens flagged;
 * - face match on the bona fide photos: FNMR (same-person pairs not passing) and FMR (different-
 *   person pairs passing) at the engine's thresholds.
 * `--out` writes the generated images there to look at; nothing generated is kept otherwise.
 * `--extra-genuine <dir>` adds every photo of that folder as more bona fide selfies (as sent and as
 * a phone upload), and `--real-attacks <dir>` every photo there as a real re-capture (a print or a
 * screen photographed by a camera, not simulated): third-party photos used at run time only, never
 * committed (docs/fraud.md names the ones measured, their repositories and licences).
 */
import { readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { analyzeFace, faceMatchOutcome, livenessOutcome, similarity } from '../src/engines/face/analyze.js';
import { closeFaceEngine } from '../src/engines/face/human.js';
import { judgePad, measurePad } from '../src/engines/face/pad.js';
import { closeRecaptureModel } from '../src/engines/face/pad-model.js';
import { detectRecapture } from '../src/engines/document/recapture.js';
import { makeCutout, makePrint, makeScreen } from './attacks/generate.js';
import { makeCutoutC, makePrintC, makeScreenC } from './attacks/generate-im.js';

const here = dirname(fileURLToPath(import.meta.url));
const FACE_DIR = resolve(here, '../../shared/realdata/face');
const ID_DIRS = [resolve(here, '../../shared/realdata/id/mrz-passporteye'), resolve(here, '../../shared/realdata/id/mrz-fastmrz')];
const { values } = parseArgs({
  options: {
    variant: { type: 'string', default: 'all' },
    only: { type: 'string', default: 'all' },
    out: { type: 'string' },
    'extra-genuine': { type: 'string' },
    'real-attacks': { type: 'string' },
  },
});
/** Generator variants: A and B calibrate, C measures. */
type Variant = 'A' | 'B' | 'C';
const runFaces = values.only === 'all' || values.only === 'faces';
/** `--only extra`: just the folders of `--extra-genuine` and `--real-attacks`. */
const runExtra = values.only !== 'documents';
const runDocuments = values.only === 'all' || values.only === 'documents';
const variants: Variant[] = values.variant === 'all' ? ['A', 'B', 'C'] : [values.variant as Variant];
if (values.out) mkdirSync(values.out, { recursive: true });

/** How one selfie came out. */
type Outcome = 'passed' | 'review' | 'failed' | 'no_face';

/** PAD time per selfie, in milliseconds. */
const padMs: number[] = [];

/**
 * Liveness as the face engine decides it (PAD failure first, then the models' outcome), and as the
 * baseline decided it: the same measures without the re-capture model.
 */
async function liveness(
  bytes: Buffer,
): Promise<{ outcome: Outcome; baseline: Outcome; why?: string; box?: [number, number, number, number]; embedding?: number[] }> {
  try {
    const analysis = await analyzeFace(bytes, { pick: 'largest' });
    const started = performance.now();
    const measures = await measurePad(bytes, analysis);
    const pad = judgePad(measures);
    padMs.push(performance.now() - started);
    // Before: as main judged it, without the re-capture model.
    const before = judgePad({ ...measures, recaptureModel: null });
    const models = livenessOutcome(analysis);
    const decide = (failed: boolean): Outcome => (failed || models === 'failed' ? 'failed' : models === 'review' ? 'review' : 'passed');
    return {
      outcome: decide(pad.outcome === 'failed'),
      baseline: decide(before.outcome === 'failed'),
      why: pad.signals
        .filter((signal) => signal.name !== 'camera_metadata' && signal.outcome !== 'passed')
        .map((signal) => `${signal.name}:${signal.outcome}=${String(signal.value)}`)
        .join(' '),
      box: analysis.box,
      embedding: analysis.embedding,
    };
  } catch {
    return { outcome: 'no_face', baseline: 'no_face' };
  }
}

const tally = new Map<string, Record<Outcome, number>>();
const baselineTally = new Map<string, Record<Outcome, number>>();
function count(kind: string, result: { outcome: Outcome; baseline: Outcome; why?: string }, file: string): void {
  console.log(`  ${kind.padEnd(26)} ${result.outcome.padEnd(8)} (baseline ${result.baseline.padEnd(8)}) ${file} ${result.why ?? ''}`);
  for (const [table, outcome] of [
    [tally, result.outcome],
    [baselineTally, result.baseline],
  ] as const) {
    const row = table.get(kind) ?? { passed: 0, review: 0, failed: 0, no_face: 0 };
    row[outcome] += 1;
    table.set(kind, row);
  }
}
function save(name: string, bytes: Buffer): void {
  if (values.out) writeFileSync(join(values.out, name), bytes);
}

const files = readdirSync(FACE_DIR)
  .filter((file) => /\.(jpe?g|png)$/i.test(file))
  .sort();
const bonaFide: { person: string; embedding: number[] }[] = [];
const started = Date.now();
for (const [index, file] of runFaces ? files.entries() : []) {
  const photo = readFileSync(join(FACE_DIR, file));
  const scene = readFileSync(join(FACE_DIR, files[(index + 5) % files.length]!));
  const phone = await sharp(photo).rotate().resize({ width: 720, withoutEnlargement: true }).jpeg({ quality: 75 }).toBuffer();
  for (const [kind, bytes] of [
    ['bona fide (as sent)', photo],
    ['bona fide (phone upload)', phone],
  ] as const) {
    const result = await liveness(bytes);
    count(kind, result, file);
    if (kind === 'bona fide (as sent)' && result.embedding) bonaFide.push({ person: file.split('__')[0]!, embedding: result.embedding });
  }
  const original = await sharp(photo).rotate().metadata();
  const face = await liveness(photo);
  // Family C holds its prints in front of other scenes than A and B.
  const sceneC = readFileSync(join(FACE_DIR, files[(index + 3) % files.length]!));
  for (const variant of variants) {
    const seed = variant === 'C' ? 5000 + index * 13 : index * 7 + (variant === 'A' ? 0 : 1000);
    const attacks: [string, Buffer][] =
      variant === 'C'
        ? [
            [`print C`, await makePrintC(photo, sceneC, seed + 1)],
            [`screen C`, await makeScreenC(photo, sceneC, seed + 2)],
          ]
        : [
            [`print ${variant}`, await makePrint(photo, variant, scene, seed + 1)],
            [`screen ${variant}`, await makeScreen(photo, variant, scene, seed + 2)],
          ];
    if (face.box) {
      // The analysis box is in pixels of the ≤1280 px analysis image; the cut-out is made at full size.
      const scale = Math.max(1, Math.max(original.width ?? 0, original.height ?? 0) / 1280);
      const box = face.box.map((value) => value * scale) as [number, number, number, number];
      attacks.push([
        `cutout ${variant}`,
        variant === 'C' ? await makeCutoutC(photo, box, sceneC, seed + 3) : await makeCutout(photo, box, variant, scene, seed + 3),
      ]);
    }
    for (const [kind, bytes] of attacks) {
      save(`${kind.replace(' ', '-')}-${file}.jpg`, bytes);
      count(kind, await liveness(bytes), file);
    }
  }
}

/** Photos of a folder, sorted (none when no folder is given). */
const photosIn = (dir: string | undefined): string[] =>
  dir
    ? readdirSync(dir)
        .filter((file) => /\.(jpe?g|png)$/i.test(file))
        .sort()
        .map((file) => join(dir, file))
    : [];
for (const path of runExtra ? photosIn(values['extra-genuine']) : []) {
  const photo = readFileSync(path);
  const phone = await sharp(photo).rotate().resize({ width: 720, withoutEnlargement: true }).jpeg({ quality: 75 }).toBuffer();
  count('extra bona fide (as sent)', await liveness(photo), path);
  count('extra bona fide (phone)', await liveness(phone), path);
}
for (const path of runExtra ? photosIn(values['real-attacks']) : []) count('real re-capture', await liveness(readFileSync(path)), path);

const documents = new Map<string, { flagged: number; total: number }>();
for (const dir of runDocuments ? ID_DIRS : []) {
  for (const [index, file] of readdirSync(dir)
    .filter((name) => /\.(jpe?g|png)$/i.test(name))
    .sort()
    .entries()) {
    const specimen = readFileSync(join(dir, file));
    const scene = readFileSync(join(FACE_DIR, files[index % files.length]!));
    const sets: [string, Buffer][] = [['genuine specimen', specimen]];
    for (const variant of variants) {
      if (variant === 'C') {
        const sceneC = readFileSync(join(FACE_DIR, files[(index + 3) % files.length]!));
        sets.push([`document screen C`, await makeScreenC(specimen, sceneC, 7000 + index)]);
        sets.push([`document print C`, await makePrintC(specimen, sceneC, 8000 + index)]);
        continue;
      }
      sets.push([`document screen ${variant}`, await makeScreen(specimen, variant, scene, index + 1)]);
      sets.push([`document print ${variant}`, await makePrint(specimen, variant, scene, index + 2)]);
    }
    for (const [kind, bytes] of sets) {
      if (kind !== 'genuine specimen') save(`${kind.replace(/ /g, '-')}-${file}.jpg`, bytes);
      const finding = await detectRecapture(bytes);
      const row = documents.get(kind) ?? { flagged: 0, total: 0 };
      row.total += 1;
      if (finding.outcome === 'review') row.flagged += 1;
      documents.set(kind, row);
      console.log(`  ${kind.padEnd(26)} ${finding.outcome.padEnd(8)} ${file}`);
    }
  }
}

const percent = (part: number, whole: number) => (whole === 0 ? '–' : `${((100 * part) / whole).toFixed(1)} %`);
console.log(
  `\nSelfie liveness on the development sets (${((Date.now() - started) / 1000).toFixed(0)} s; generator variants ${variants.join(', ')})`,
);
console.log('kind                       n   passed  review  failed  no face   rate                            baseline');
const rateOf = (kind: string, row: Record<Outcome, number>) => {
  const judged = row.passed + row.review + row.failed;
  return kind.includes('bona fide') ? `BPCER ${percent(row.failed, judged)}` : `APCER ${percent(row.passed, judged)}`;
};
for (const [kind, row] of tally) {
  const judged = row.passed + row.review + row.failed;
  console.log(
    `${kind.padEnd(26)} ${String(judged + row.no_face).padStart(2)} ${String(row.passed).padStart(8)} ${String(row.review).padStart(7)} ${String(row.failed).padStart(7)} ${String(row.no_face).padStart(8)}   ${rateOf(kind, row).padEnd(32)}${rateOf(kind, baselineTally.get(kind)!)}`,
  );
}
const sortedMs = [...padMs].sort((a, b) => a - b);
if (sortedMs.length > 0)
  console.log(
    `PAD time per selfie (decode and every signal with the re-capture model; human's models excluded): median ${sortedMs[Math.floor(sortedMs.length / 2)]!.toFixed(0)} ms, p95 ${sortedMs[Math.min(sortedMs.length - 1, Math.floor(sortedMs.length * 0.95))]!.toFixed(0)} ms over ${sortedMs.length} images`,
  );
console.log('\nDocument re-capture (review signal document_recapture)');
for (const [kind, row] of documents)
  console.log(`${kind.padEnd(26)} ${String(row.total).padStart(2)}  flagged ${row.flagged} (${percent(row.flagged, row.total)})`);

let genuinePairs = 0;
let genuineMissed = 0;
let impostorPairs = 0;
let impostorPassed = 0;
for (let i = 0; i < bonaFide.length; i++) {
  for (let j = i + 1; j < bonaFide.length; j++) {
    const outcome = faceMatchOutcome(similarity(bonaFide[i]!.embedding, bonaFide[j]!.embedding));
    if (bonaFide[i]!.person === bonaFide[j]!.person) {
      genuinePairs += 1;
      if (outcome !== 'passed') genuineMissed += 1;
    } else {
      impostorPairs += 1;
      if (outcome === 'passed') impostorPassed += 1;
    }
  }
}
console.log(
  `\nFace match on the bona fide photos: FNMR ${percent(genuineMissed, genuinePairs)} (${genuineMissed}/${genuinePairs} same-person pairs not passed), FMR ${percent(impostorPassed, impostorPairs)} (${impostorPassed}/${impostorPairs} different-person pairs passed)`,
);
await closeFaceEngine();
await closeRecaptureModel();
