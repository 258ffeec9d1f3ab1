/**
 * Accuracy of the live ID document engine on real specimen photos (`npm run bench:accuracy:id`).
 *
 * Runs `verifyDocument` (the code `POST /v1/id-verification` runs with a live key) over every
 * image of the development set `../shared/realdata/id` (`manifest.json`: per file the `country`
 * and `id_type` to send and the printed MRZ lines), and prints per group the share of items the
 * engine got right and the mean time per item, beside the figures of the unchanged engine
 * (`BASELINE`). Two-sided types get the same photo as front and back, as a client with one photo
 * would send it.
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
 * set's).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parse } from 'mrz';
import { MRZ_OCR_PROVIDER, verifyDocument } from '../../src/engines/document/engine.js';
import { closeMrzReader } from '../../src/engines/document/mrz-reader.js';
import { TWO_SIDED_ID_TYPES } from '../../src/engines/inputs.js';
import sharp from 'sharp';

/** Where the development set lives (REALDATA_ID_DIR overrides), relative to the repository root. */
const DATA_DIR = process.env.REALDATA_ID_DIR ?? path.resolve(fileURLToPath(import.meta.url), '../../../../shared/realdata/id');

/** One row of the printed table. */
export interface AccuracyRow {
  /** Group of items (an item may be in several). */
  group: string;
  /** Items in the group. */
  items: number;
  /** Items the engine got right (see the module comment). */
  correct: number;
  /** Mean wall time of one `verifyDocument` call, in milliseconds. */
  msPerItem: number;
  /**
   * Mean CPU time of this process (all threads) per call, in milliseconds: on a machine shared with
   * other work the wall time mostly measures the others; absent from the baseline.
   */
  cpuMsPerItem?: number;
}

/**
 * The unchanged engine, measured on commit 7f1dcb4 (this machine, 2 shared cores, Nov 2026); that
 * engine reported no nationality or sex, so only its five fields were compared.
 */
export const BASELINE: readonly AccuracyRow[] = [
  { group: 'all', items: 45, correct: 7, msPerItem: 2107 },
  { group: 'legible MRZ (target ≥ 90 %)', items: 41, correct: 6, msPerItem: 2256 },
  { group: 'passports', items: 27, correct: 7, msPerItem: 1967 },
  { group: 'specimen state codes', items: 13, correct: 0, msPerItem: 3648 },
  { group: 'ID cards / permits', items: 14, correct: 0, msPerItem: 2401 },
  { group: 'small (< 600×400 px)', items: 17, correct: 0, msPerItem: 32 },
  { group: 'rotated / tilted / perspective', items: 3, correct: 0, msPerItem: 3490 },
  { group: 'MRZ illegible (fields only)', items: 3, correct: 0, msPerItem: 22 },
  { group: 'visas', items: 4, correct: 0, msPerItem: 2025 },
  { group: 'no MRZ', items: 1, correct: 1, msPerItem: 2268 },
];

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

/** Fields compared, named as the engine's `details.extracted`. */
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

/** Groups of an item: by document type, size, capture and expected outcome. */
async function groupsOf(entry: ManifestEntry, bytes: Buffer): Promise<string[]> {
  const groups = ['all'];
  if (entry.mrz) groups.push('legible MRZ (target ≥ 90 %)');
  if (entry.id_type === 'PASSPORT') groups.push('passports');
  else if (entry.id_type === 'VISA') groups.push('visas');
  else groups.push('ID cards / permits');
  const { width = 0, height = 0 } = await sharp(bytes).metadata();
  if (Math.min(width, height) < 400 || Math.max(width, height) < 600) groups.push('small (< 600×400 px)');
  if (/rotat|tilt|perspective/i.test(entry.note ?? '')) groups.push('rotated / tilted / perspective');
  if (entry.mrz && /(^|<)(UTO|BDR)|^.{2}UTO/.test(entry.mrz.join('\n'))) groups.push('specimen state codes');
  if (!entry.mrz) groups.push(entry.expect_no_mrz ? 'no MRZ' : 'MRZ illegible (fields only)');
  return groups;
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

/**
 * Runs the engine over the development set; `log` receives one line per item when given; `only`
 * keeps the files whose path contains one of its texts (all when empty).
 */
export async function measure(
  log?: (line: string) => void,
  only: readonly string[] = [],
): Promise<{ engine: string; rows: AccuracyRow[] }> {
  const manifest = (JSON.parse(await readFile(path.join(DATA_DIR, 'manifest.json'), 'utf8')) as ManifestEntry[]).filter(
    (entry) => only.length === 0 || only.some((text) => entry.file.includes(text)),
  );
  const today = new Date();
  const totals = new Map<string, { items: number; correct: number; ms: number; cpuMs: number }>();
  for (const entry of manifest) {
    const bytes = await readFile(path.join(DATA_DIR, entry.file));
    const uri = `data:image/${entry.file.endsWith('.png') ? 'png' : 'jpeg'};base64,${bytes.toString('base64')}`;
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    const result = await verifyDocument(
      {
        country: entry.country,
        id_type: entry.id_type,
        image_front: uri,
        ...(TWO_SIDED_ID_TYPES.includes(entry.id_type) ? { image_back: uri } : {}),
      },
      null,
      { now: () => today },
    );
    const ms = performance.now() - started;
    const cpu = process.cpuUsage(cpuStarted);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const wrong = judge(expectationOf(entry, today), result.details.result_code, result.details.extracted);
    log?.(
      `${wrong.length === 0 ? 'ok  ' : 'FAIL'} ${entry.file} ${Math.round(ms)} ms (CPU ${Math.round(cpuMs)} ms) ${result.details.result_code} ${wrong.join('; ')}`,
    );
    for (const group of await groupsOf(entry, bytes)) {
      const total = totals.get(group) ?? { items: 0, correct: 0, ms: 0, cpuMs: 0 };
      total.items++;
      total.correct += wrong.length === 0 ? 1 : 0;
      total.ms += ms;
      total.cpuMs += cpuMs;
      totals.set(group, total);
    }
  }
  const rows = [...totals].map(([group, total]) => ({
    group,
    items: total.items,
    correct: total.correct,
    msPerItem: Math.round(total.ms / total.items),
    cpuMsPerItem: Math.round(total.cpuMs / total.items),
  }));
  return { engine: MRZ_OCR_PROVIDER, rows };
}

/** `correct/items (share)`. */
function share(row: AccuracyRow | undefined): string {
  if (!row) return '–';
  return `${row.correct}/${row.items} (${Math.round((100 * row.correct) / row.items)} %)`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { verbose: { type: 'boolean', default: false }, only: { type: 'string', multiple: true, default: [] } },
  });
  const { engine, rows } = await measure(values.verbose ? (line) => console.log(line) : undefined, values.only);
  await closeMrzReader();
  console.log(`\n${engine} on ${DATA_DIR}\n`);
  console.log('| group | correct now | ms/item now | CPU ms/item now | baseline 7f1dcb4 | ms/item baseline |');
  console.log('|---|---|---|---|---|---|');
  for (const row of rows) {
    const before = BASELINE.find((candidate) => candidate.group === row.group);
    console.log(
      `| ${row.group} | ${share(row)} | ${row.msPerItem} | ${row.cpuMsPerItem ?? '–'} | ${share(before)} | ${before?.msPerItem ?? '–'} |`,
    );
  }
}
