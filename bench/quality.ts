/**
 * `npm run bench:quality`: the hosted flow's photo checks (`src/web/hosted/quality-measure.ts`, the
 * module the page runs) over every real document and face photo of `../shared/realdata`, which are
 * clean scans and photos, and over bad photos made from each of them (blurred, over-exposed, a glare
 * spot, too dark, too small). Prints, per kind of warning, the false alarms on the clean photos and
 * the bad photos caught, for the checks as they were (bench/support/quality-baseline.ts) and as
 * they are, in the same run; then every clean photo that still warns, with its measures.
 */
import { baselineProblems } from './support/quality-baseline.js';
import { measureQuality, type QualityProblem } from '../src/web/hosted/quality-measure.js';
import { badPhotos, realPhotos, type QualityPhoto } from '../test/support/quality-photos.js';

const KINDS: QualityProblem[] = ['too_small', 'too_dark', 'too_bright', 'blurry', 'glare'];

const started = performance.now();
const clean = await realPhotos();
const bad = await badPhotos(() => true);

/** The warnings of both versions on one photo, and how long the current one took. */
function judge(photo: QualityPhoto): { before: QualityProblem[]; after: QualityProblem[]; ms: number; measures: string } {
  const before = baselineProblems(photo.pixels, photo.width, photo.height, photo.subject);
  const t = performance.now();
  const report = measureQuality(photo.pixels, photo.width, photo.height, photo.subject);
  const ms = performance.now() - t;
  const measures = `p5 ${report.darkLuma} p95 ${report.brightLuma} sharp ${report.sharpness.toFixed(0)} clipped ${(report.clippedShare * 100).toFixed(1)} % (centre ${(report.centreClippedShare * 100).toFixed(1)} %) glare ${(report.glareShare * 100).toFixed(2)} %`;
  return { before, after: report.problems, ms, measures };
}

const cleanResults = clean.map((photo) => ({ photo, ...judge(photo) }));
const badResults = bad.map((photo) => ({ photo, ...judge(photo) }));

for (const subject of ['document', 'selfie'] as const) {
  const rows = cleanResults.filter(({ photo }) => photo.subject === subject);
  console.log(`\nClean ${subject} photos: ${rows.length}. Photos with a warning, and warnings per kind (before → after):`);
  const anyBefore = rows.filter((r) => r.before.length > 0).length;
  const anyAfter = rows.filter((r) => r.after.length > 0).length;
  console.log(`  any warning   ${String(anyBefore).padStart(3)} → ${String(anyAfter).padStart(3)}`);
  for (const kind of KINDS) {
    const before = rows.filter((r) => r.before.includes(kind)).length;
    const after = rows.filter((r) => r.after.includes(kind)).length;
    console.log(`  ${kind.padEnd(12)}  ${String(before).padStart(3)} → ${String(after).padStart(3)}`);
  }
}

console.log('\nBad photos made from them: caught (the expected warning given) before → after, of how many:');
for (const kind of KINDS) {
  for (const subject of ['document', 'selfie'] as const) {
    const rows = badResults.filter(({ photo }) => photo.expected === kind && photo.subject === subject);
    if (rows.length === 0) continue;
    const before = rows.filter((r) => r.before.includes(kind)).length;
    const after = rows.filter((r) => r.after.includes(kind)).length;
    console.log(`  ${kind.padEnd(12)} ${subject.padEnd(9)} ${String(before).padStart(3)} → ${String(after).padStart(3)} of ${rows.length}`);
  }
}

const missed = badResults.filter((r) => !r.after.includes(r.photo.expected));
const alarms = cleanResults.filter((r) => r.after.length > 0);
console.log(`\nClean photos that still warn (${alarms.length}):`);
for (const r of alarms) console.log(`  ${r.photo.name}  ${r.photo.width}×${r.photo.height}  [${r.after.join(', ')}]  ${r.measures}`);
console.log(`Bad photos not caught (${missed.length}):`);
for (const r of missed) console.log(`  ${r.photo.name}  [${r.after.join(', ')}]  ${r.measures}`);
if (process.env.BENCH_QUALITY_VERBOSE) {
  for (const r of [...cleanResults, ...badResults]) console.log(`  ${r.photo.name.padEnd(80)} ${r.measures}  [${r.after.join(', ')}]`);
}

const times = [...cleanResults, ...badResults].map((r) => r.ms).sort((a, b) => a - b);
console.log(
  `\nCheck time per photo (Node, current checks): p50 ${times[Math.floor(times.length / 2)].toFixed(1)} ms, p95 ${times[Math.floor(times.length * 0.95)].toFixed(1)} ms; whole bench ${((performance.now() - started) / 1000).toFixed(1)} s.`,
);
