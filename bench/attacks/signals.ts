/**
 * Per-signal PAD values of every cached image (bench/attacks/cache.ts), one JSON line each, and
 * the liveness outcome per kind: `npx tsx bench/attacks/signals.ts [<cache dir>] [<kind regex>]`.
 * Exists to see why an attack family passes (which signals stay quiet and how far from their
 * limits) without running the face models again. Beside the signals judged, it prints two
 * candidates measured and not adopted (docs/fraud.md): `sharpness_ratio` (mean |Laplacian| over
 * the inner face over that of a ring at 1.3–2.2 face radii: a flat medium has no depth of field)
 * and `outline_closed` (share of 64 rays from the face's centre whose strongest colour step lies at
 * a radius close to the next ray's: a cut-out's edge is a closed outline).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeUpright, type Box, type Rgb } from '../../src/engines/recapture-evidence.js';
import { judgePad, measurePad } from '../../src/engines/face/pad.js';
import { livenessOutcome, MAX_ANALYSIS_SIDE_PX } from '../../src/engines/face/analyze.js';

const dir = process.argv[2] ?? '/tmp/pad-cache';
const only = process.argv[3] ? new RegExp(process.argv[3]) : null;
/** One cached image (bench/attacks/cache.ts). */
type Entry = { kind: string; source: string; file: string; box: Box | null; real: number | null; live: number | null };

const luminanceAt = (data: Uint8Array, i: number) => 0.299 * data[i]! + 0.587 * data[i + 1]! + 0.114 * data[i + 2]!;

/** Mean |Laplacian| over the inner face (within half its radii) over that of the ring at 1.3–2.2 radii. */
function sharpnessRatio(image: Rgb, [x, y, w, h]: Box): number {
  const { data, width, height } = image;
  const cx = x + w / 2;
  const cy = y + h / 2;
  const r = Math.max(w, h) / 2;
  const at = (px: number, py: number) => luminanceAt(data, (py * width + px) * 3);
  let face = 0;
  let faceCount = 0;
  let ring = 0;
  let ringCount = 0;
  for (let py = Math.max(1, Math.round(cy - 2.2 * r)); py < Math.min(height - 1, cy + 2.2 * r); py++) {
    for (let px = Math.max(1, Math.round(cx - 2.2 * r)); px < Math.min(width - 1, cx + 2.2 * r); px++) {
      const d = Math.hypot((px - cx) / (w / 2), (py - cy) / (h / 2));
      if (d >= 0.5 && (d <= 1.3 || d >= 2.2)) continue;
      const laplacian = Math.abs(4 * at(px, py) - at(px - 1, py) - at(px + 1, py) - at(px, py - 1) - at(px, py + 1));
      if (d < 0.5) {
        face += laplacian;
        faceCount++;
      } else {
        ring += laplacian;
        ringCount++;
      }
    }
  }
  return Math.round((face / Math.max(1, faceCount) / Math.max(0.01, ring / Math.max(1, ringCount))) * 100) / 100;
}

/** Share of 64 rays (0.8–2.2 face radii) whose strongest colour step lies within 0.08 radii of the next ray's. */
function outlineClosed(image: Rgb, [x, y, w, h]: Box, rays = 64): number {
  const { data, width, height } = image;
  const cx = x + w / 2;
  const cy = y + h / 2;
  const radius = Math.max(w, h) / 2;
  const k = Math.max(2, Math.round(radius / 20));
  const radii: (number | null)[] = [];
  for (let j = 0; j < rays; j++) {
    const angle = (2 * Math.PI * j) / rays;
    const profile: (number[] | null)[] = [];
    const r0 = 0.8 * radius - k;
    for (let r = r0; r <= 2.2 * radius + k; r += 1) {
      const px = Math.round(cx + Math.cos(angle) * r);
      const py = Math.round(cy + Math.sin(angle) * r);
      if (px < 0 || py < 0 || px >= width || py >= height) profile.push(null);
      else profile.push([...data.subarray((py * width + px) * 3, (py * width + px) * 3 + 3)]);
    }
    let best: number | null = null;
    let bestStep = 40;
    for (let i = k; i < profile.length - k; i++) {
      const inside = [0, 0, 0];
      const outside = [0, 0, 0];
      let whole = true;
      for (let d = 1; d <= k && whole; d++) {
        const p = profile[i - d];
        const q = profile[i + d];
        if (!p || !q) whole = false;
        else {
          for (let c = 0; c < 3; c++) {
            inside[c]! += p[c]! / k;
            outside[c]! += q[c]! / k;
          }
        }
      }
      const step = Math.hypot(inside[0]! - outside[0]!, inside[1]! - outside[1]!, inside[2]! - outside[2]!);
      if (whole && step > bestStep) {
        bestStep = step;
        best = r0 + i;
      }
    }
    radii.push(best);
  }
  let closed = 0;
  for (let j = 0; j < rays; j++) {
    const a = radii[j];
    const b = radii[(j + 1) % rays];
    if (a != null && b != null && Math.abs(a - b) <= radius * 0.08) closed++;
  }
  return Math.round((closed / rays) * 100) / 100;
}

const entries = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as Entry[];
const table = new Map<string, Record<string, number>>();
for (const entry of entries) {
  if (only && !only.test(entry.kind)) continue;
  const row = table.get(entry.kind) ?? { passed: 0, review: 0, failed: 0, no_face: 0 };
  table.set(entry.kind, row);
  if (!entry.box) {
    row.no_face! += 1;
    continue;
  }
  const bytes = readFileSync(join(dir, entry.file));
  const image = await decodeUpright(bytes, MAX_ANALYSIS_SIDE_PX);
  const measures = await measurePad(bytes, { box: entry.box, real: entry.real, live: entry.live }, image);
  const pad = judgePad(measures);
  const models = livenessOutcome({ real: entry.real, live: entry.live });
  const outcome = pad.outcome === 'failed' || models === 'failed' ? 'failed' : models === 'review' ? 'review' : 'passed';
  row[outcome]! += 1;
  console.log(
    JSON.stringify({
      kind: entry.kind,
      source: entry.source,
      outcome,
      ...Object.fromEntries(pad.signals.map((signal) => [signal.name, signal.value])),
      frame_coverage: measures.frame.coverage,
      sharpness_ratio: sharpnessRatio(image, entry.box),
      outline_closed: outlineClosed(image, entry.box),
      spoke: pad.signals
        .filter((signal) => signal.outcome !== 'passed' && signal.name !== 'camera_metadata')
        .map((signal) => `${signal.name}:${signal.outcome}`),
    }),
  );
}
console.log('\nkind                  passed review failed no_face  rate');
for (const [kind, row] of table) {
  const judged = row.passed! + row.review! + row.failed!;
  const genuine = /bona fide|extra/.test(kind);
  const rate =
    judged === 0 ? '–' : `${genuine ? 'BPCER' : 'APCER'} ${((100 * (genuine ? row.failed! : row.passed!)) / judged).toFixed(1)} %`;
  console.log(
    `${kind.padEnd(22)} ${String(row.passed).padStart(6)} ${String(row.review).padStart(6)} ${String(row.failed).padStart(6)} ${String(row.no_face).padStart(7)}  ${rate}`,
  );
}
