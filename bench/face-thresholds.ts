/**
 * Measures the face engine on the labelled crops of `test/support/face-samples.ts` (photos
 * shipped in the human package) and prints what docs/face.md records: the similarity
 * distributions of same-person and different-person pairs, the error rates at candidate
 * thresholds, and the antispoof/liveness scores of these genuine (not spoofed) photos; then the
 * same pairs as cancelable templates (256 signed bytes, src/engines/face/template.ts) under
 * `--secrets` random tenant secrets, which is what the list gate compares.
 *
 * Run: `npx tsx bench/face-thresholds.ts [--secrets 20]` (about 25 s on 2 cores; no network).
 */
import { parseArgs } from 'node:util';
import { detectFaces, l2Normalize, livenessOutcome, similarity } from '../src/engines/face/analyze.js';
import { closeFaceEngine } from '../src/engines/face/human.js';
import {
  FACE_MATCH_PASS_SIMILARITY,
  FACE_MATCH_REVIEW_SIMILARITY,
  LIVE_FAIL_BELOW,
  LIVE_REVIEW_BELOW,
  REAL_REVIEW_BELOW,
} from '../src/engines/face/thresholds.js';
import { toTemplate } from '../src/engines/face/template.js';
import { FACE_SAMPLES, faceSamplePng, type FaceSample } from '../test/support/face-samples.js';

/** Random tenant secrets the template section averages over. */
const SECRETS = Number(parseArgs({ options: { secrets: { type: 'string', default: '20' } } }).values.secrets);

interface Described {
  sample: FaceSample;
  embedding: number[];
  real: number | null;
  live: number | null;
}

/** The value below which `fraction` of the sorted values fall. */
function quantile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
}

function summary(name: string, values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const cells = [0, 0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99, 1].map((q) => quantile(sorted, q).toFixed(3));
  return `| ${name} | ${values.length} | ${cells.join(' | ')} |`;
}

function share<T>(values: T[], predicate: (value: T) => boolean): string {
  return `${((100 * values.filter(predicate).length) / values.length).toFixed(1)}%`;
}

async function main(): Promise<void> {
  const started = Date.now();
  const described: Described[] = [];
  let skipped = 0;
  for (const sample of FACE_SAMPLES) {
    // The grid cells sometimes catch a neighbour's face at the edge: take the largest, as the
    // engine does for document portraits (it is the one that gets an embedding).
    const [face] = await detectFaces(await faceSamplePng(sample));
    if (!face?.embedding) {
      skipped++;
      continue;
    }
    described.push({ sample, embedding: l2Normalize(face.embedding), real: face.real ?? null, live: face.live ?? null });
  }
  const genuine: number[] = [];
  const impostor: number[] = [];
  const unlabelled: number[] = [];
  for (let i = 0; i < described.length; i++) {
    for (let j = i + 1; j < described.length; j++) {
      const a = described[i];
      const b = described[j];
      const cosine = similarity(a.embedding, b.embedding);
      if (a.sample.identity === 'author' && b.sample.identity === 'author') genuine.push(cosine);
      else if (a.sample.identity === 'author' || b.sample.identity === 'author') impostor.push(cosine);
      else unlabelled.push(cosine);
    }
  }
  const authors = described.filter((entry) => entry.sample.identity === 'author').length;
  console.log(
    `faces described: ${described.length} (${authors} author, ${described.length - authors} other); no face found: ${skipped}; ${Date.now() - started} ms`,
  );
  console.log('\n| pairs | n | min | p1 | p5 | p25 | p50 | p75 | p95 | p99 | max |\n|---|---|---|---|---|---|---|---|---|---|---|');
  console.log(summary('same person', genuine));
  console.log(summary('different people', impostor));
  console.log(summary('unlabelled others', unlabelled));
  console.log(
    '\n| threshold | same person below (false reject) | different people at or above (false accept) | unlabelled at or above |\n|---|---|---|---|',
  );
  for (let threshold = 0.8; threshold <= 0.961; threshold += 0.02) {
    console.log(
      `| ${threshold.toFixed(2)} | ${share(genuine, (v) => v < threshold)} | ${share(impostor, (v) => v >= threshold)} | ${share(unlabelled, (v) => v >= threshold)} |`,
    );
  }
  console.log(`\nchosen: pass >= ${FACE_MATCH_PASS_SIMILARITY}, review >= ${FACE_MATCH_REVIEW_SIMILARITY}`);
  console.log(
    `  same person: passed ${share(genuine, (v) => v >= FACE_MATCH_PASS_SIMILARITY)}, review ${share(genuine, (v) => v >= FACE_MATCH_REVIEW_SIMILARITY && v < FACE_MATCH_PASS_SIMILARITY)}, failed ${share(genuine, (v) => v < FACE_MATCH_REVIEW_SIMILARITY)}`,
  );
  console.log(
    `  different:   passed ${share(impostor, (v) => v >= FACE_MATCH_PASS_SIMILARITY)}, review ${share(impostor, (v) => v >= FACE_MATCH_REVIEW_SIMILARITY && v < FACE_MATCH_PASS_SIMILARITY)}, failed ${share(impostor, (v) => v < FACE_MATCH_REVIEW_SIMILARITY)}`,
  );
  templateSection(described);
  const reals = described.flatMap((entry) => (entry.real === null ? [] : [entry.real]));
  const lives = described.flatMap((entry) => (entry.live === null ? [] : [entry.live]));
  console.log('\nantispoof and liveness on these genuine (unspoofed, but screenshot-recompressed) faces:');
  console.log('\n| score | n | min | p1 | p5 | p25 | p50 | p75 | p95 | p99 | max |\n|---|---|---|---|---|---|---|---|---|---|---|');
  console.log(summary('real (antispoof)', reals));
  console.log(summary('live (liveness)', lives));
  const liveness = described.map((entry) => livenessOutcome(entry));
  console.log(
    `\nreal < ${REAL_REVIEW_BELOW}: ${share(reals, (v) => v < REAL_REVIEW_BELOW)}; live < ${LIVE_REVIEW_BELOW}: ${share(lives, (v) => v < LIVE_REVIEW_BELOW)}; live < ${LIVE_FAIL_BELOW}: ${share(lives, (v) => v < LIVE_FAIL_BELOW)}; liveness check: review ${share(liveness, (v) => v === 'review')}, failed ${share(liveness, (v) => v === 'failed')}`,
  );
  await closeFaceEngine();
}

/**
 * The same pairs as templates under `SECRETS` secrets: their distributions, how far the
 * rotation (and byte rounding) moves each cosine, and the error rates at the thresholds (the list gate uses the pass one).
 */
function templateSection(described: Described[]): void {
  const genuine: number[] = [];
  const impostor: number[] = [];
  const moved: number[] = [];
  for (let s = 0; s < SECRETS; s++) {
    const templates = described.map((entry) => toTemplate(entry.embedding, `bench-secret-${s}`));
    for (let i = 0; i < described.length; i++) {
      for (let j = i + 1; j < described.length; j++) {
        const authors = [described[i].sample.identity, described[j].sample.identity].filter((identity) => identity === 'author').length;
        if (authors === 0) continue;
        const cosine = similarity(templates[i], templates[j]);
        (authors === 2 ? genuine : impostor).push(cosine);
        moved.push(cosine - similarity(described[i].embedding, described[j].embedding));
      }
    }
  }
  const sd = Math.sqrt(moved.reduce((sum, value) => sum + value * value, 0) / moved.length);
  const largest = Math.max(...moved.map(Math.abs));
  console.log(
    `\ntemplates (256 signed bytes) under ${SECRETS} secrets: template cosine − embedding cosine: sd ${sd.toFixed(3)}, largest ${largest.toFixed(3)}`,
  );
  console.log('\n| pairs | n | min | p1 | p5 | p25 | p50 | p75 | p95 | p99 | max |\n|---|---|---|---|---|---|---|---|---|---|---|');
  console.log(summary('same person (templates)', genuine));
  console.log(summary('different people (templates)', impostor));
  console.log('\n| threshold | same person below (false reject) | different people at or above (false accept) |\n|---|---|---|');
  for (let threshold = 0.8; threshold <= 0.961; threshold += 0.02) {
    const fa = impostor.filter((v) => v >= threshold).length;
    console.log(
      `| ${threshold.toFixed(2)} | ${share(genuine, (v) => v < threshold)} | ${share(impostor, (v) => v >= threshold)} (${fa} of ${impostor.length}) |`,
    );
  }
}

await main();
