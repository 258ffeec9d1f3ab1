/**
 * Presentation-attack and face-match rates on the development sets: `npm run bench:attacks
 * [-- --variant A|B|both] [--only faces|documents] [--out <dir>]`. Each image's outcome is printed as it is
 * judged, the rates at the end.
 *
 * Bona fide: every photo of `../shared/realdata/face`, as sent and as a phone would upload it
 * (720 px wide, JPEG q75, no EXIF). Attacks: each photo printed, shown on a screen and cut out
 * (bench/attacks/generate.ts), by generator variant A (calibration) and B (measurement), and each
 * ID specimen of `../shared/realdata/id` re-captured from a screen and from a print.
 * Printed, in ISO/IEC 30107-3 terms:
 * - selfies: APCER per attack kind (attacks whose liveness passed, i.e. accepted as bona fide) and
 *   BPCER (genuine photos whose liveness failed), with reviews and undetected faces apart;
 * - documents: share of re-captures flagged `document_recapture`, and of genuine specimens flagged;
 * - face match on the bona fide photos: FNMR (same-person pairs not passing) and FMR (different-
 *   person pairs passing) at the engine's thresholds.
 * `--out` writes the generated images there to look at; nothing generated is kept otherwise.
 */
import { readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { analyzeFace, faceMatchOutcome, livenessOutcome, similarity } from '../src/engines/face/analyze.js';
import { closeFaceEngine } from '../src/engines/face/human.js';
import { detectPresentationAttack } from '../src/engines/face/pad.js';
import { detectRecapture } from '../src/engines/document/recapture.js';
import { makeCutout, makePrint, makeScreen, type AttackVariant } from './attacks/generate.js';

const here = dirname(fileURLToPath(import.meta.url));
const FACE_DIR = resolve(here, '../../shared/realdata/face');
const ID_DIRS = [resolve(here, '../../shared/realdata/id/mrz-passporteye'), resolve(here, '../../shared/realdata/id/mrz-fastmrz')];
const { values } = parseArgs({
  options: { variant: { type: 'string', default: 'both' }, only: { type: 'string', default: 'all' }, out: { type: 'string' } },
});
const runFaces = values.only !== 'documents';
const runDocuments = values.only !== 'faces';
const variants: AttackVariant[] = values.variant === 'both' ? ['A', 'B'] : [values.variant as AttackVariant];
if (values.out) mkdirSync(values.out, { recursive: true });

/** How one selfie came out. */
type Outcome = 'passed' | 'review' | 'failed' | 'no_face';

/** Liveness as the face engine decides it: PAD failure first, then the models' outcome. */
async function liveness(bytes: Buffer): Promise<{ outcome: Outcome; box?: [number, number, number, number]; embedding?: number[] }> {
  try {
    const analysis = await analyzeFace(bytes, { pick: 'largest' });
    const pad = await detectPresentationAttack(bytes, analysis);
    const models = livenessOutcome(analysis);
    const outcome: Outcome = pad.outcome === 'failed' || models === 'failed' ? 'failed' : models === 'review' ? 'review' : 'passed';
    return { outcome, box: analysis.box, embedding: analysis.embedding };
  } catch {
    return { outcome: 'no_face' };
  }
}

const tally = new Map<string, Record<Outcome, number>>();
function count(kind: string, outcome: Outcome, file: string): void {
  console.log(`  ${kind.padEnd(26)} ${outcome.padEnd(8)} ${file}`);
  const row = tally.get(kind) ?? { passed: 0, review: 0, failed: 0, no_face: 0 };
  row[outcome] += 1;
  tally.set(kind, row);
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
    count(kind, result.outcome, file);
    if (kind === 'bona fide (as sent)' && result.embedding) bonaFide.push({ person: file.split('__')[0]!, embedding: result.embedding });
  }
  const original = await sharp(photo).rotate().metadata();
  const face = await liveness(photo);
  for (const variant of variants) {
    const seed = index * 7 + (variant === 'A' ? 0 : 1000);
    const attacks: [string, Buffer][] = [
      [`print ${variant}`, await makePrint(photo, variant, scene, seed + 1)],
      [`screen ${variant}`, await makeScreen(photo, variant, scene, seed + 2)],
    ];
    if (face.box) {
      // The analysis box is in pixels of the ≤1280 px analysis image; the cut-out is made at full size.
      const scale = Math.max(1, Math.max(original.width ?? 0, original.height ?? 0) / 1280);
      const box = face.box.map((value) => value * scale) as [number, number, number, number];
      attacks.push([`cutout ${variant}`, await makeCutout(photo, box, variant, scene, seed + 3)]);
    }
    for (const [kind, bytes] of attacks) {
      save(`${kind.replace(' ', '-')}-${file}.jpg`, bytes);
      count(kind, (await liveness(bytes)).outcome, file);
    }
  }
}

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
console.log('kind                       n   passed  review  failed  no face   rate');
for (const [kind, row] of tally) {
  const judged = row.passed + row.review + row.failed;
  const rate = kind.startsWith('bona fide')
    ? `BPCER ${percent(row.failed, judged)}`
    : `APCER ${percent(row.passed, judged)} (passed liveness)`;
  console.log(
    `${kind.padEnd(26)} ${String(judged + row.no_face).padStart(2)} ${String(row.passed).padStart(8)} ${String(row.review).padStart(7)} ${String(row.failed).padStart(7)} ${String(row.no_face).padStart(8)}   ${rate}`,
  );
}
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
