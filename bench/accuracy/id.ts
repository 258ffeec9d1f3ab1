/**
 * Accuracy of the live ID document engine on real specimen photos (`npm run bench:accuracy:id`).
 *
 * Runs `verifyDocument` (the code `POST /v1/id-verification` runs with a live key) over every
 * image of the development set `../shared/realdata/id` (`manifest.json`: per file the `country`
 * and `id_type` to send and the printed MRZ lines), and prints per group (document type, capture)
 * and per cause of miss the share of items the engine got right and the CPU time per item, beside
 * the same figures of the previous engine run in the same process on the same items (`--baseline
 * <git ref>`, default `BASELINE_REF`: its `src/` is extracted from git into a temporary folder and
 * imported, so the two see the same machine load). Two-sided types get the same photo as front and
 * back, as a client with one photo would send it.
 *
 * "Correct", strictly:
 * - an item whose expected MRZ has valid check digits: accepted (MRZ read with every check digit
 *   holding, and authentic: `result_code` `clear` or `document_expired`, since most specimens are
 *   expired), and every parsed field the engine reports (document number, names, dates of birth
 *   and expiry, nationality, sex) equals the expected MRZ's;
 * - an item whose printed MRZ itself breaks a check digit: refused as `mrz_mismatch`;
 * - the image without an MRZ: `mrz_not_found`;
 * - the three photos too small to transcribe (only some printed-page fields known): accepted with
 *   those fields.
 *
 * Expected full dates: birth is the latest year not after today; expiry is the year within 50 years
 * either side of today (both as ICAO 9303 leaves it to the reader). `--verbose` prints each item;
 * `--only <text>` (repeatable) runs only the files whose path contains one of the texts, for
 * iterating on a few failures without paying for the whole set (figures of a subset are not the
 * set's). `--capture sideways|tilt|small|glare` reads every image as a phone might capture it
 * (`id-captures.ts`: turned, on a table in perspective, smaller, under a reflection) instead of as
 * published. The barcode section (`id-barcodes.ts`) follows; `--barcodes-only` runs it alone.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { parse } from 'mrz';
import { MRZ_OCR_PROVIDER, verifyDocument } from '../../src/engines/document/engine.js';
import { closeMrzReader } from '../../src/engines/document/mrz-reader.js';
import { TWO_SIDED_ID_TYPES } from '../../src/engines/inputs.js';
import { storedDetails } from '../../src/engines/stored-details.js';
import sharp from 'sharp';
import { snakeCase } from 'change-case';
import { measureBarcodes, printBarcodeRows } from './id-barcodes.js';
import { captureAs, CAPTURE_KINDS, type CaptureKind } from './id-captures.js';

/** Where the development set lives (REALDATA_ID_DIR overrides), relative to the repository root. */
const DATA_DIR = process.env.REALDATA_ID_DIR ?? path.resolve(fileURLToPath(import.meta.url), '../../../../shared/realdata/id');

/** The tally of one group for one engine. */
export interface AccuracyTally {
  /** Items in the group. */
  items: number;
  /** Items the engine got right (see the module comment). */
  correct: number;
  /** Wall time of all `verifyDocument` calls, in milliseconds. */
  ms: number;
  /**
   * CPU time of this process (all threads) of all calls, in milliseconds: on a machine shared with
   * other work the wall time mostly measures the others.
   */
  cpuMs: number;
}

/** One row of the printed table: a group, the current engine's tally and the baseline's. */
export interface AccuracyRow {
  /** Group of items (an item may be in several). */
  group: string;
  now: AccuracyTally;
  baseline: AccuracyTally | null;
}

/** The engine compared against by default: the branch point of the visual-zone and check-digit work. */
export const BASELINE_REF = '7cf3ea3';

/** The document engine's entry point, as both the current and the baseline engine export it. */
type VerifyDocument = typeof verifyDocument;

/** An engine to measure: its entry point and how to release its OCR models. */
interface EngineUnderTest {
  verify: VerifyDocument;
  close: () => Promise<void>;
}

/**
 * The engine of `ref`: its `src/` extracted with `git archive` into a temporary folder (once per
 * commit), given this checkout's `node_modules`, and imported through tsx like our own.
 */
async function engineAt(ref: string): Promise<EngineUnderTest> {
  const root = path.resolve(fileURLToPath(import.meta.url), '../../..');
  const sha = execFileSync('git', ['rev-parse', '--short', ref], { cwd: root, encoding: 'utf8' }).trim();
  const dir = path.join(os.tmpdir(), `idv-engine-${sha}`);
  if (!existsSync(path.join(dir, 'src/engines/document/engine.ts'))) {
    await mkdir(dir, { recursive: true });
    const archive = execFileSync('git', ['archive', '--format=tar', sha, 'src'], { cwd: root, maxBuffer: 1 << 30 });
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
    await writeFile(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    if (!existsSync(path.join(dir, 'node_modules'))) await symlink(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
  }
  const engine = (await import(pathToFileURL(path.join(dir, 'src/engines/document/engine.ts')).href)) as { verifyDocument: VerifyDocument };
  const reader = (await import(pathToFileURL(path.join(dir, 'src/engines/document/mrz-reader.ts')).href)) as {
    closeMrzReader: () => Promise<void>;
  };
  // Engines from before issue 26's input half took the spec's snake_case input (`image_front`, `id_type`).
  const inputs = await readFile(path.join(dir, 'src/engines/inputs.ts'), 'utf8').catch(() => '');
  if (inputs.includes('imageFront')) return { verify: engine.verifyDocument, close: reader.closeMrzReader };
  const verify: VerifyDocument = (input, ...rest) =>
    engine.verifyDocument(
      Object.fromEntries(Object.entries(input).map(([key, value]) => [snakeCase(key), value])) as typeof input,
      ...rest,
    );
  return { verify, close: reader.closeMrzReader };
}

/** One entry of `manifest.json`. */
interface ManifestEntry {
  file: string;
  id_type: string;
  country: string;
  mrz: string[] | null;
  fields?: { issuing?: string; surname?: string; given?: string; number?: string; dob?: string; expiry?: string };
  expect_no_mrz?: boolean;
  note?: string;
}

/** Fields compared, named as the spec names `details.extracted` (the kept details). */
type Expected = Partial<
  Record<'document_number' | 'first_name' | 'last_name' | 'date_of_birth' | 'expiry_date' | 'nationality_code' | 'sex', string | null>
>;

/** What an item should produce. */
type Expectation = { kind: 'accept'; fields: Expected } | { kind: 'refuse'; code: 'mrz_mismatch' | 'mrz_not_found' };

/** `YYMMDD` → `YYYY-MM-DD` by the rules in the module comment. */
function fullDate(value: string, kind: 'birth' | 'expiry', today: Date): string {
  const yy = Number(value.slice(0, 2));
  const year = today.getUTCFullYear();
  let full = Math.floor(year / 100) * 100 + yy;
  if (kind === 'birth') {
    if (full > year) full -= 100;
  } else if (full >= year + 50) full -= 100;
  else if (full < year - 50) full += 100;
  return `${full}-${value.slice(2, 4)}-${value.slice(4, 6)}`;
}

/** MRZ name text as words. */
function words(value: string | null | undefined): string | null {
  const text = (value ?? '').replace(/</g, ' ').replace(/\s+/g, ' ').trim();
  return text || null;
}

/** The characters of a field as printed, fillers dropped. */
function printed(lines: string[], range: { line: number; start: number; end: number } | undefined): string | null {
  return range ? lines[range.line].slice(range.start, range.end).replace(/</g, '') || null : null;
}

/** Visas (MRV-A 44, MRV-B 36 characters) carry no personal-number or composite check digit. */
const VISA_FREE_FIELDS = new Set(['documentCode', 'personalNumberCheckDigit', 'compositeCheckDigit', 'personalNumber']);

/** What a perfect reader would return for the printed MRZ (parsed by the `mrz` package, no autocorrect). */
function expectationOf(entry: ManifestEntry, today: Date): Expectation {
  if (entry.expect_no_mrz) return { kind: 'refuse', code: 'mrz_not_found' };
  if (!entry.mrz) {
    const given = entry.fields ?? {};
    return {
      kind: 'accept',
      fields: {
        last_name: given.surname ?? undefined,
        first_name: given.given ?? undefined,
        document_number: given.number ?? undefined,
        date_of_birth: given.dob ? fullDate(given.dob, 'birth', today) : undefined,
        expiry_date: given.expiry ? fullDate(given.expiry, 'expiry', today) : undefined,
      },
    };
  }
  const result = parse(entry.mrz);
  const visa = entry.mrz[0].startsWith('V');
  const digitsHold = result.details
    .filter((detail) => detail.field?.endsWith('CheckDigit') && !(visa && VISA_FREE_FIELDS.has(detail.field)))
    .every((detail) => detail.valid);
  if (!digitsHold) return { kind: 'refuse', code: 'mrz_mismatch' };
  const fields = result.fields;
  return {
    kind: 'accept',
    fields: {
      document_number: result.documentNumber ?? fields.documentNumber ?? null,
      first_name: words(fields.firstName),
      last_name: words(fields.lastName),
      date_of_birth: fields.birthDate ? fullDate(fields.birthDate, 'birth', today) : null,
      expiry_date: fields.expirationDate ? fullDate(fields.expirationDate, 'expiry', today) : null,
      // As printed: `mrz` nulls the codes it does not know (UTO, the old Romanian 132).
      nationality_code: printed(entry.mrz, result.details.find((detail) => detail.field === 'nationality')?.ranges[0]),
      sex: fields.sex === 'male' ? 'M' : fields.sex === 'female' ? 'F' : null,
    },
  };
}

/** The layout of a printed MRZ, from its line count and length (visas told apart). */
function formatOf(lines: string[]): string {
  if (lines.length === 3) return 'TD1';
  if (lines[0].startsWith('V')) return lines[0].length === 44 ? 'MRV-A' : 'MRV-B';
  return lines[0].length === 44 ? 'TD3' : 'TD2';
}

/** Groups of an item: by document type (id_type and MRZ layout), capture and expected outcome. */
async function groupsOf(entry: ManifestEntry, bytes: Buffer): Promise<string[]> {
  const groups = ['all'];
  if (entry.mrz) groups.push('legible MRZ (target ≥ 95 %)');
  const kind =
    entry.id_type === 'PASSPORT'
      ? 'passports'
      : entry.id_type === 'VISA'
        ? 'visas'
        : entry.id_type === 'RESIDENCE_PERMIT'
          ? 'residence permits'
          : 'ID cards';
  groups.push(`type: ${kind}${entry.mrz ? ` (${formatOf(entry.mrz)})` : ''}`);
  const { width = 0, height = 0 } = await sharp(bytes).metadata();
  if (Math.min(width, height) < 400 || Math.max(width, height) < 600) groups.push('capture: small (< 600×400 px)');
  if (/rotat|tilt|perspective/i.test(entry.note ?? '')) groups.push('capture: rotated / tilted / perspective');
  if (/streak|glare/i.test(entry.note ?? '')) groups.push('capture: glare / light streak');
  if (entry.mrz && /(^|<)(UTO|BDR)|^.{2}UTO/.test(entry.mrz.join('\n'))) groups.push('specimen state codes');
  if (!entry.mrz) groups.push(entry.expect_no_mrz ? 'no MRZ' : 'MRZ illegible (fields only)');
  return groups;
}

/**
 * Why an item was missed, as the issue counts misses: the zone not found, check digits failing
 * (characters misread), accepted with a wrong field (names carry no check digit), another result
 * code (state, type), or a broken printed MRZ accepted.
 */
function causeOf(expectation: Expectation, resultCode: string, wrong: string[]): string | null {
  if (wrong.length === 0) return null;
  if (expectation.kind === 'refuse') return `${expectation.code} expected, ${resultCode} returned`;
  if (resultCode === 'mrz_not_found') return 'zone not found (mrz_not_found)';
  if (resultCode === 'mrz_mismatch') return 'misread characters, check digits fail (mrz_mismatch)';
  if (resultCode !== 'clear' && resultCode !== 'document_expired') return `other result (${resultCode})`;
  if (wrong.every((line) => /^(first|last)_name /.test(line))) return 'accepted, a name misread';
  return 'accepted, a checked field wrong';
}

/** Whether the engine's outcome is what the item should produce; the mismatching fields otherwise. */
function judge(expectation: Expectation, resultCode: string, extracted: Record<string, unknown>): string[] {
  if (expectation.kind === 'refuse') return resultCode === expectation.code ? [] : [`result_code ${resultCode} ≠ ${expectation.code}`];
  if (resultCode !== 'clear' && resultCode !== 'document_expired') return [`result_code ${resultCode}`];
  const wrong: string[] = [];
  for (const [field, expected] of Object.entries(expectation.fields)) {
    if (expected === undefined || !(field in extracted)) continue;
    const actual = extracted[field];
    const same = typeof expected === 'string' && typeof actual === 'string' ? words(actual) === words(expected) : actual === expected;
    if (!same) wrong.push(`${field} ${JSON.stringify(actual)} ≠ ${JSON.stringify(expected)}`);
  }
  return wrong;
}

/** One engine's outcome on one item. */
interface ItemRun {
  wrong: string[];
  cause: string | null;
  ms: number;
  cpuMs: number;
  resultCode: string;
  /** Fields the visual zone was compared on, and those found to differ (every specimen here is genuine, so any is a false alarm). */
  viz: { compared: string[]; mismatched: string[]; zone: string | null; flagged: boolean } | null;
}

/** Runs one engine on one item, timing it. */
async function runItem(engine: EngineUnderTest, entry: ManifestEntry, uri: string, today: Date): Promise<ItemRun> {
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  const result = await engine.verify(
    {
      country: entry.country,
      idType: entry.id_type,
      imageFront: uri,
      ...(TWO_SIDED_ID_TYPES.includes(entry.id_type) ? { imageBack: uri } : {}),
    },
    null,
    { now: () => today },
  );
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuStarted);
  const expectation = expectationOf(entry, today);
  // Judged in the spec's names, as kept: a baseline engine from before the camelCase move returns them already.
  const details = storedDetails(result.details);
  const wrong = judge(expectation, details.result_code, details.extracted);
  // The baseline engine has no visual-zone comparison.
  const viz = details.viz
    ? {
        compared: details.viz.compared,
        mismatched: details.viz.mismatches.map((mismatch) => mismatch.field),
        zone: details.viz.zone ?? null,
        // Raised only on a valid MRZ: a page whose MRZ fails is refused as mrz_mismatch whatever its VIZ says.
        flagged: result.warnings.some((warning) => warning.code === 'viz_mrz_mismatch'),
      }
    : null;
  return {
    wrong,
    cause: causeOf(expectation, details.result_code, wrong),
    ms,
    cpuMs: (cpu.user + cpu.system) / 1000,
    resultCode: details.result_code,
    viz,
  };
}

/** Adds one run to a group's tally. */
function tally(into: Map<string, AccuracyTally>, key: string, run: ItemRun): void {
  const total = into.get(key) ?? { items: 0, correct: 0, ms: 0, cpuMs: 0 };
  total.items++;
  total.correct += run.wrong.length === 0 ? 1 : 0;
  total.ms += run.ms;
  total.cpuMs += run.cpuMs;
  into.set(key, total);
}

/** What `measure` returns: per group and per cause of miss, the current engine beside the baseline. */
export interface AccuracyReport {
  engine: string;
  baselineRef: string | null;
  rows: AccuracyRow[];
  /** Misses per cause: current engine's count, baseline's count. */
  causes: { cause: string; now: number; baseline: number | null }[];
  /** The visual-zone cross-check: items whose page had a field compared, fields compared, items flagged `viz_mrz_mismatch` (false alarms: all specimens are genuine). */
  viz: {
    items: number;
    compared: number;
    fields: number;
    falseAlarms: string[];
    /**
     * Per MRZ layout of the printed MRZ (TD1, TD2, TD3, MRV-A, MRV-B): pages, pages with a field
     * compared, pages that show no VIZ (a TD1 card's MRZ side, `zone` `mrz_side_only`), and the
     * pages with neither, which a VIZ reader should have compared.
     */
    byLayout: { layout: string; pages: number; compared: number; noViz: string[]; without: string[] }[];
  };
}

/**
 * Runs the engine over the development set, and the baseline engine (when given) on each item
 * right after it; `log` receives one line per item when given; `only` keeps the files whose path
 * contains one of its texts (all when empty).
 */
export async function measure(
  log?: (line: string) => void,
  only: readonly string[] = [],
  baselineRef: string | null = BASELINE_REF,
  capture?: CaptureKind,
): Promise<AccuracyReport> {
  const manifest = (JSON.parse(await readFile(path.join(DATA_DIR, 'manifest.json'), 'utf8')) as ManifestEntry[]).filter(
    (entry) => only.length === 0 || only.some((text) => entry.file.includes(text)),
  );
  const today = new Date();
  const current: EngineUnderTest = { verify: verifyDocument, close: closeMrzReader };
  const baseline = baselineRef ? await engineAt(baselineRef) : null;
  const now = new Map<string, AccuracyTally>();
  const before = new Map<string, AccuracyTally>();
  const causesNow = new Map<string, number>();
  const causesBefore = new Map<string, number>();
  const vizPages = { compared: 0, fields: 0, falseAlarms: [] as string[] };
  const vizByLayout = new Map<string, { pages: number; compared: number; noViz: string[]; without: string[] }>();
  try {
    for (const [index, entry] of manifest.entries()) {
      const published = await readFile(path.join(DATA_DIR, entry.file));
      const bytes = capture ? await captureAs(capture, published, index) : published;
      const uri = `data:image/${entry.file.endsWith('.png') && !capture ? 'png' : 'jpeg'};base64,${bytes.toString('base64')}`;
      const run = await runItem(current, entry, uri, today);
      const old = baseline ? await runItem(baseline, entry, uri, today) : null;
      log?.(
        `${run.wrong.length === 0 ? 'ok  ' : 'FAIL'} ${entry.file} CPU ${Math.round(run.cpuMs)} ms ${run.resultCode} ${run.wrong.join('; ')}` +
          (run.viz ? ` viz compared [${run.viz.compared.join(',')}] differ [${run.viz.mismatched.join(',')}]` : '') +
          (old ? ` [baseline ${old.wrong.length === 0 ? 'ok' : 'FAIL'} CPU ${Math.round(old.cpuMs)} ms ${old.resultCode}]` : ''),
      );
      for (const group of await groupsOf(entry, bytes)) {
        tally(now, group, run);
        if (old) tally(before, group, old);
      }
      if (run.cause) causesNow.set(run.cause, (causesNow.get(run.cause) ?? 0) + 1);
      if (entry.mrz) {
        const layout = formatOf(entry.mrz);
        const counts = vizByLayout.get(layout) ?? { pages: 0, compared: 0, noViz: [], without: [] };
        counts.pages++;
        if (run.viz && run.viz.compared.length > 0) counts.compared++;
        else if (run.viz?.zone === 'mrz_side_only') counts.noViz.push(entry.file);
        else counts.without.push(entry.file);
        vizByLayout.set(layout, counts);
      }
      if (run.viz && run.viz.compared.length > 0) {
        vizPages.compared++;
        vizPages.fields += run.viz.compared.length;
        if (run.viz.flagged) vizPages.falseAlarms.push(`${entry.file} (${run.viz.mismatched.join(', ')})`);
      }
      if (old?.cause) causesBefore.set(old.cause, (causesBefore.get(old.cause) ?? 0) + 1);
    }
  } finally {
    await current.close();
    await baseline?.close();
  }
  const rows = [...now].map(([group, tallyNow]) => ({ group, now: tallyNow, baseline: before.get(group) ?? null }));
  const causes = [...new Set([...causesNow.keys(), ...causesBefore.keys()])].map((cause) => ({
    cause,
    now: causesNow.get(cause) ?? 0,
    baseline: baseline ? (causesBefore.get(cause) ?? 0) : null,
  }));
  return {
    engine: MRZ_OCR_PROVIDER,
    baselineRef,
    rows,
    causes,
    viz: {
      items: manifest.length,
      ...vizPages,
      byLayout: [...vizByLayout].sort(([left], [right]) => left.localeCompare(right)).map(([layout, counts]) => ({ layout, ...counts })),
    },
  };
}

/** `correct/items (share)`. */
function share(tallied: AccuracyTally | null): string {
  if (!tallied) return '–';
  return `${tallied.correct}/${tallied.items} (${Math.round((100 * tallied.correct) / tallied.items)} %)`;
}

/** Mean CPU ms per item. */
function cpuPerItem(tallied: AccuracyTally | null): string {
  return tallied ? String(Math.round(tallied.cpuMs / tallied.items)) : '–';
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      verbose: { type: 'boolean', default: false },
      only: { type: 'string', multiple: true, default: [] },
      baseline: { type: 'string', default: BASELINE_REF },
      'no-baseline': { type: 'boolean', default: false },
      'barcodes-only': { type: 'boolean', default: false },
      capture: { type: 'string' },
    },
  });
  const capture = values.capture as CaptureKind | undefined;
  if (capture !== undefined && !CAPTURE_KINDS.includes(capture)) {
    console.error(`--capture must be one of ${CAPTURE_KINDS.join(', ')}`);
    process.exit(2);
  }
  if (values['barcodes-only']) {
    printBarcodeRows(await measureBarcodes(values.verbose ? (line) => console.log(line) : undefined));
    process.exit(0);
  }
  const report = await measure(
    values.verbose ? (line) => console.log(line) : undefined,
    values.only,
    values['no-baseline'] ? null : values.baseline,
    capture,
  );
  const base = report.baselineRef ?? 'none';
  console.log(
    `\n${report.engine} on ${DATA_DIR}${capture ? ` captured ${capture} (bench/accuracy/id-captures.ts)` : ''}, baseline ${base} run on the same items in the same process\n`,
  );
  console.log(`| group | correct now | baseline ${base} | CPU ms/item now | CPU ms/item baseline | wall ms/item now |`);
  console.log('|---|---|---|---|---|---|');
  for (const row of report.rows) {
    console.log(
      `| ${row.group} | ${share(row.now)} | ${share(row.baseline)} | ${cpuPerItem(row.now)} | ${cpuPerItem(row.baseline)} | ${Math.round(row.now.ms / row.now.items)} |`,
    );
  }
  console.log(`\n| cause of a miss | items now | items baseline ${base} |`);
  console.log('|---|---|---|');
  for (const { cause, now, baseline } of report.causes) console.log(`| ${cause} | ${now} | ${baseline ?? '–'} |`);
  const { viz } = report;
  console.log(
    `\nVisual zone cross-check: ${viz.compared}/${viz.items} pages had fields compared (${viz.fields} fields); false viz_mrz_mismatch: ${viz.falseAlarms.length}${viz.falseAlarms.length ? ` (${viz.falseAlarms.join('; ')})` : ''}`,
  );
  console.log('\n| MRZ layout | pages | pages with a VIZ field compared | no VIZ on the page (TD1 MRZ side) | VIZ not compared |');
  console.log('|---|---|---|---|---|');
  for (const row of viz.byLayout)
    console.log(`| ${row.layout} | ${row.pages} | ${row.compared} | ${row.noViz.length} | ${row.without.length} |`);
  if (values.verbose)
    for (const row of viz.byLayout) {
      if (row.noViz.length) console.log(`${row.layout} pages showing only the MRZ side: ${row.noViz.join(', ')}`);
      if (row.without.length) console.log(`${row.layout} pages without a VIZ comparison: ${row.without.join(', ')}`);
    }
  printBarcodeRows(await measureBarcodes(values.verbose ? (line) => console.log(line) : undefined));
}
