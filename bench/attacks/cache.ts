/**
 * Makes the development attack sets once and keeps, per image, the file and the face models'
 * output (box, antispoof, liveness), so PAD signals can be explored on numbers without running
 * the models again: `npx tsx bench/attacks/cache.ts <dir> [--extra-genuine <dir>]`. Same photos,
 * generators and seeds as bench/attacks.ts. Nothing is committed; the folder is scratch.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { analyzeFace } from '../../src/engines/face/analyze.js';
import { closeFaceEngine } from '../../src/engines/face/human.js';
import { makeCutout, makePrint, makeScreen } from './generate.js';
import { makeCutoutC, makePrintC, makeScreenC } from './generate-im.js';

const here = dirname(fileURLToPath(import.meta.url));
const FACE_DIR = resolve(here, '../../../shared/realdata/face');
const { values, positionals } = parseArgs({ allowPositionals: true, options: { 'extra-genuine': { type: 'string' } } });
const out = positionals[0] ?? '/tmp/pad-cache';
mkdirSync(out, { recursive: true });
const indexPath = join(out, 'index.json');
/** One cached image: its kind, source photo, file and the models' output (null box: no face). */
type Entry = { kind: string; source: string; file: string; box: number[] | null; real: number | null; live: number | null };
const entries: Entry[] = existsSync(indexPath) ? (JSON.parse(readFileSync(indexPath, 'utf8')) as Entry[]) : [];
const done = new Set(entries.map((entry) => entry.file));

async function keep(kind: string, source: string, bytes: Buffer): Promise<Entry> {
  const file = `${kind.replace(/[^a-zA-Z0-9]+/g, '-')}__${source.replace(/\.[a-z]+$/i, '')}.jpg`;
  const existing = entries.find((entry) => entry.file === file);
  if (existing) return existing;
  writeFileSync(join(out, file), bytes);
  let entry: Entry;
  try {
    const analysis = await analyzeFace(bytes, { pick: 'largest' });
    entry = { kind, source, file, box: [...analysis.box], real: analysis.real, live: analysis.live };
  } catch {
    entry = { kind, source, file, box: null, real: null, live: null };
  }
  entries.push(entry);
  done.add(file);
  writeFileSync(indexPath, JSON.stringify(entries));
  console.log(kind, source, entry.box ? 'face' : 'no face');
  return entry;
}

const files = readdirSync(FACE_DIR)
  .filter((file) => /\.(jpe?g|png)$/i.test(file))
  .sort();
for (const [index, file] of files.entries()) {
  const photo = readFileSync(join(FACE_DIR, file));
  const scene = readFileSync(join(FACE_DIR, files[(index + 5) % files.length]!));
  const sceneC = readFileSync(join(FACE_DIR, files[(index + 3) % files.length]!));
  const phone = await sharp(photo).rotate().resize({ width: 720, withoutEnlargement: true }).jpeg({ quality: 75 }).toBuffer();
  const sent = await keep('bona fide sent', file, photo);
  await keep('bona fide phone', file, phone);
  const original = await sharp(photo).rotate().metadata();
  for (const variant of ['A', 'B', 'C'] as const) {
    const seed = variant === 'C' ? 5000 + index * 13 : index * 7 + (variant === 'A' ? 0 : 1000);
    const has = (kind: string) => done.has(`${kind.replace(/[^a-zA-Z0-9]+/g, '-')}__${file.replace(/\.[a-z]+$/i, '')}.jpg`);
    if (!has(`print ${variant}`))
      await keep(
        `print ${variant}`,
        file,
        variant === 'C' ? await makePrintC(photo, sceneC, seed + 1) : await makePrint(photo, variant, scene, seed + 1),
      );
    if (!has(`screen ${variant}`))
      await keep(
        `screen ${variant}`,
        file,
        variant === 'C' ? await makeScreenC(photo, sceneC, seed + 2) : await makeScreen(photo, variant, scene, seed + 2),
      );
    if (sent.box && !has(`cutout ${variant}`)) {
      const scale = Math.max(1, Math.max(original.width ?? 0, original.height ?? 0) / 1280);
      const box = sent.box.map((value) => value * scale) as [number, number, number, number];
      await keep(
        `cutout ${variant}`,
        file,
        variant === 'C' ? await makeCutoutC(photo, box, sceneC, seed + 3) : await makeCutout(photo, box, variant, scene, seed + 3),
      );
    }
  }
}
for (const file of values['extra-genuine']
  ? readdirSync(values['extra-genuine'])
      .filter((name) => /\.(jpe?g|png)$/i.test(name))
      .sort()
  : []) {
  const photo = readFileSync(join(values['extra-genuine']!, file));
  const phone = await sharp(photo).rotate().resize({ width: 720, withoutEnlargement: true }).jpeg({ quality: 75 }).toBuffer();
  await keep('extra sent', file, photo);
  await keep('extra phone', file, phone);
}
await closeFaceEngine();
