/**
 * The barcode section of `npm run bench:accuracy:id`: read rate and time per image of the document
 * step's barcode reader (`readDocumentBarcodes`: zxing-wasm with our options, and a second pass at
 * twice the size for small photos) beside zxing-wasm's defaults on the encoded file (the baseline,
 * run on the same images in the same process).
 *
 * - Real photos: zxing-cpp's own test photos of PDF417 symbols and Data Matrix samples
 *   (test/fixtures/barcodes/zxing-cpp, Apache-2.0), read = the expected text decoded.
 * - AAMVA licence backs rendered here (bwip-js PDF417 on a card back, test/id-verification/support/
 *   licence.ts) under each degradation a phone photo brings: scale, rotation, blur, noise, JPEG;
 *   read = the AAMVA record parsed with every field equal to what was encoded.
 * - Pages without any barcode (passports): the time every document step now spends looking.
 * - The whole document step on a rendered licence (front and back, `verifyDocument`; read = passed
 *   with the barcode's fields); its baseline is the same step with the back searched thoroughly for
 *   an MRZ (`readMrz`'s `thorough` search, what every licence paid before the barcode decided it).
 *
 * No real photographed US or Canadian licence is in the set: none is published under a licence
 * we can use, so the licence figures are on rendered cards only.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareZXingModule, readBarcodes } from 'zxing-wasm/reader';
import { parseAamva } from '../../src/engines/document/aamva.js';
import { readDocumentBarcodes } from '../../src/engines/document/barcode-reader.js';
import { verifyDocument } from '../../src/engines/document/engine.js';
import { readMrz } from '../../src/engines/document/mrz-reader.js';
import {
  californiaLicence,
  ontarioLicence,
  renderLicenceBack,
  renderLicenceFront,
  type LicenceIdentity,
} from '../../test/id-verification/support/licence.js';
import type { Degradation } from '../../test/id-verification/support/synthetic-document.js';
import { renderDocument, samplePassport, toDataUri } from '../../test/id-verification/support/synthetic-document.js';

const FIXTURES = path.resolve(fileURLToPath(import.meta.url), '../../../test/fixtures/barcodes/zxing-cpp');

/** Read count and time of one reader on one group. */
interface Tally {
  items: number;
  read: number;
  ms: number;
}

/** One printed row. */
export interface BarcodeRow {
  group: string;
  now: Tally;
  baseline: Tally;
}

/** The degradations of a licence back photo, by name. */
export const LICENCE_DEGRADATIONS: Record<string, Degradation> = {
  clean: {},
  'scale 2× (1712 px)': { widthPx: 1712 },
  'scale 0.75 (642 px)': { widthPx: 642 },
  'scale 0.6 (514 px)': { widthPx: 514 },
  'rotate 5°': { rotateDegrees: 5 },
  'rotate 15°': { rotateDegrees: 15 },
  'rotate 90°': { rotateDegrees: 90 },
  'blur σ1': { blurSigma: 1 },
  'blur σ2': { blurSigma: 2 },
  'noise σ12': { noiseSigma: 12 },
  'JPEG q40': { jpegQuality: 40 },
  'JPEG q15': { jpegQuality: 15 },
  'phone: 4°, σ1, 800 px, q60': { rotateDegrees: 4, blurSigma: 1, widthPx: 800, jpegQuality: 60 },
};

/** Licence holders whose payloads differ in length and content. */
function holders(now: Date): LicenceIdentity[] {
  const california = californiaLicence(4, now);
  const ontario = ontarioLicence(now);
  return [
    california,
    { ...california, lastName: "O'NEIL-MARTINEZ", firstName: 'ALEXANDRA', middleName: 'MARIE LOUISE', documentNumber: 'Y9876543' },
    { ...california, iin: '636015', state: 'TX', city: 'HOUSTON', street: '4500 WESTHEIMER RD APT 1204', version: 8 },
    ontario,
    { ...ontario, iin: '604428', state: 'QC', lastName: 'GAGNON', firstName: 'MARIE', documentNumber: 'G2555-050689-08' },
  ];
}

let baselinePrepared = false;

/** zxing-wasm with its defaults, fed the encoded file (its own image decoder): the baseline. */
async function baselineRead(bytes: Buffer): Promise<{ bytes: Buffer; text: string }[]> {
  if (!baselinePrepared) {
    const wasm = readFileSync(createRequire(import.meta.url).resolve('zxing-wasm/reader/zxing_reader.wasm'));
    prepareZXingModule({ overrides: { wasmBinary: wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer } });
    baselinePrepared = true;
  }
  const results = await readBarcodes(new Uint8Array(bytes), { formats: ['PDF417', 'QRCode', 'DataMatrix'] });
  return results.filter((result) => result.isValid).map((result) => ({ bytes: Buffer.from(result.bytes), text: result.text }));
}

async function timed<T>(run: () => Promise<T>, tally: Tally): Promise<T> {
  const started = performance.now();
  const result = await run();
  tally.ms += performance.now() - started;
  tally.items++;
  return result;
}

const empty = (): Tally => ({ items: 0, read: 0, ms: 0 });

/** Whether a decoded payload is the licence's AAMVA record with every field as encoded. */
function licenceRead(symbols: { bytes: Buffer }[], holder: LicenceIdentity): boolean {
  for (const symbol of symbols) {
    try {
      const { fields } = parseAamva(symbol.bytes.toString('latin1'));
      if (
        fields.lastName === holder.lastName &&
        fields.firstName === holder.firstName &&
        fields.documentNumber === holder.documentNumber &&
        fields.dateOfBirth === holder.dateOfBirth &&
        fields.expiryDate === holder.expiryDate
      )
        return true;
    } catch {
      // Not this symbol.
    }
  }
  return false;
}

/** Runs both readers over every group; `log` gets one line per miss. */
export async function measureBarcodes(log?: (line: string) => void): Promise<BarcodeRow[]> {
  const rows: BarcodeRow[] = [];
  for (const folder of ['pdf417-2', 'pdf417-3', 'datamatrix-2']) {
    const row: BarcodeRow = { group: `real photos: zxing-cpp ${folder}`, now: empty(), baseline: empty() };
    const directory = path.join(FIXTURES, folder);
    for (const name of readdirSync(directory).filter((file) => !file.endsWith('.txt'))) {
      const bytes = readFileSync(path.join(directory, name));
      const expected = readFileSync(path.join(directory, name.replace(/\.\w+$/, '.txt')), 'utf8');
      const now = await timed(() => readDocumentBarcodes(bytes), row.now);
      const base = await timed(() => baselineRead(bytes), row.baseline);
      if (now.some((symbol) => symbol.text === expected)) row.now.read++;
      else log?.(`miss (now): ${folder}/${name}`);
      if (base.some((symbol) => symbol.text === expected)) row.baseline.read++;
    }
    rows.push(row);
  }
  const today = new Date();
  const people = holders(today);
  for (const [name, degradation] of Object.entries(LICENCE_DEGRADATIONS)) {
    const row: BarcodeRow = { group: `AAMVA licence back: ${name}`, now: empty(), baseline: empty() };
    for (const holder of people) {
      const photo = await renderLicenceBack(holder, degradation);
      if (licenceRead(await timed(() => readDocumentBarcodes(photo), row.now), holder)) row.now.read++;
      else log?.(`miss (now): ${name} ${holder.state} ${holder.lastName}`);
      if (licenceRead(await timed(() => baselineRead(photo), row.baseline), holder)) row.baseline.read++;
    }
    rows.push(row);
  }
  const pages: BarcodeRow = { group: 'passport page without a barcode (time spent looking)', now: empty(), baseline: empty() };
  for (const jpegQuality of [60, 75, 90]) {
    const page = await renderDocument(samplePassport(today), { jpegQuality });
    if ((await timed(() => readDocumentBarcodes(page), pages.now)).length === 0) pages.now.read++;
    if ((await timed(() => baselineRead(page), pages.baseline)).length === 0) pages.baseline.read++;
  }
  rows.push(pages);
  rows.push(await measureLicenceSteps(people, log));
  return rows;
}

/** The document step over each holder's licence, front and back, with the back's MRZ searched as now and thoroughly. */
async function measureLicenceSteps(people: LicenceIdentity[], log?: (line: string) => void): Promise<BarcodeRow> {
  const row: BarcodeRow = {
    group: 'licence document step, front and back (baseline: back searched thoroughly for an MRZ)',
    now: empty(),
    baseline: empty(),
  };
  const thorough = { readMrz: (bytes: Buffer) => readMrz(bytes, { search: 'thorough' }) };
  for (const holder of people) {
    const input = {
      country: holder.country === 'CAN' ? 'CA' : 'US',
      idType: 'DRIVERS_LICENSE',
      imageFront: toDataUri(await renderLicenceFront(holder, { jpegQuality: 85 })),
      imageBack: toDataUri(await renderLicenceBack(holder, { rotateDegrees: 2, jpegQuality: 75 })),
    };
    const passed = (outcome: Awaited<ReturnType<typeof verifyDocument>>) =>
      outcome.status === 'passed' && outcome.details.extracted.source === 'barcode';
    const now = await timed(() => verifyDocument(input, null), row.now);
    if (passed(now)) row.now.read++;
    else log?.(`step not passed (now): ${holder.state} ${holder.lastName}: ${now.status} ${now.details.resultCode}`);
    if (passed(await timed(() => verifyDocument(input, null, thorough), row.baseline))) row.baseline.read++;
  }
  return row;
}

/** Prints the section as a Markdown table. */
export function printBarcodeRows(rows: BarcodeRow[]): void {
  const share = (tally: Tally) => `${tally.read}/${tally.items} (${((100 * tally.read) / Math.max(1, tally.items)).toFixed(0)} %)`;
  const ms = (tally: Tally) => Math.round(tally.ms / Math.max(1, tally.items));
  console.log(
    '\nBarcodes (PDF417, Data Matrix): read rate and wall ms per image; baseline = zxing-wasm 3.1.4 defaults on the encoded file\n',
  );
  console.log('| group | read now | read baseline | ms/image now | ms/image baseline |');
  console.log('|---|---|---|---|---|');
  for (const row of rows)
    console.log(`| ${row.group} | ${share(row.now)} | ${share(row.baseline)} | ${ms(row.now)} | ${ms(row.baseline)} |`);
  console.log('(the passport row counts pages where nothing was reported: no false symbol)');
}
