/**
 * Proof-of-address fixtures made in the test run: bills as PDFs (pdf-lib) and as images (SVG
 * text rendered by sharp with the system's DejaVu Sans), so nothing is downloaded or committed.
 */
import { deflateRawSync, constants as zlibConstants } from 'node:zlib';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';

/** What a fixture bill says. */
export interface BillText {
  issuer?: string;
  name?: string;
  addressLines?: string[];
  /** Printed issue date, in whatever format the test wants. */
  issued?: string;
}

/** Default bill: a London electricity bill for Jane Doe. */
export const DEFAULT_BILL: Required<BillText> = {
  issuer: 'Northwind Energy Ltd',
  name: 'Jane Doe',
  addressLines: ['42 Baker Street', 'London NW1 6XE', 'United Kingdom'],
  issued: '12 March 2026',
};

/** The bill's lines from top to bottom. */
export function billLines(bill: BillText = {}): string[] {
  const b = { ...DEFAULT_BILL, ...bill };
  return [
    b.issuer,
    'Electricity bill',
    `Statement date: ${b.issued}`,
    '',
    b.name,
    ...b.addressLines,
    '',
    'Account number 1234 5678',
    'Amount due GBP 42.10',
    'Due date: 30 April 2026',
  ];
}

/** `data:` URI of some bytes. */
export function dataUri(mimeType: string, bytes: Uint8Array): string {
  return `data:${mimeType};base64,${Buffer.from(bytes).toString('base64')}`;
}

/** A one-page A4 text PDF of the bill. */
export async function billPdf(bill: BillText = {}): Promise<Buffer> {
  const document = await PDFDocument.create();
  const page = document.addPage([595, 842]);
  const font = await document.embedFont(StandardFonts.Helvetica);
  billLines(bill).forEach((line, i) => page.drawText(line, { x: 50, y: 780 - i * 18, size: 12, font }));
  return Buffer.from(await document.save());
}

/** A PDF whose only page is an embedded JPEG scan, as a scanner writes it. */
export async function scannedPdf(jpeg: Buffer): Promise<Buffer> {
  const document = await PDFDocument.create();
  const image = await document.embedJpg(jpeg);
  const page = document.addPage([image.width / 2, image.height / 2]);
  page.drawImage(image, { x: 0, y: 0, width: image.width / 2, height: image.height / 2 });
  return Buffer.from(await document.save());
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Width of a rendered bill, in pixels. */
export const BILL_WIDTH_PX = 1024;
/** Line pitch of a rendered bill, in pixels. */
export const LINE_PX = 48;

/** Renders text lines black on white, 30 px DejaVu Sans, as a PNG. */
export async function renderLines(lines: readonly string[], width = BILL_WIDTH_PX): Promise<Buffer> {
  const height = 64 + lines.length * LINE_PX;
  const text = lines
    .map(
      (line, i) => `<text x="40" y="${56 + i * LINE_PX}" font-family="DejaVu Sans" font-size="30" fill="black">${escapeXml(line)}</text>`,
    )
    .join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="white"/>${text}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** The bill rendered as a PNG photo-less scan. */
export function billPng(bill: BillText = {}): Promise<Buffer> {
  return renderLines(billLines(bill));
}

/**
 * The bill with the addressee's line replaced by `name` pasted from a quality-40 JPEG, on the
 * 16-pixel grid: the kind of edit regional ELA exists to find.
 */
export async function tamperedBillPng(name: string, bill: BillText = {}): Promise<Buffer> {
  const original = await billPng(bill);
  const nameLine = billLines(bill).indexOf({ ...DEFAULT_BILL, ...bill }.name);
  const top = Math.floor((56 + nameLine * LINE_PX - 36) / 16) * 16;
  const patch = await sharp(
    Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="480" height="48"><rect width="100%" height="100%" fill="white"/><text x="8" y="36" font-family="DejaVu Sans" font-size="30" fill="black">${escapeXml(name)}</text></svg>`,
    ),
  )
    .jpeg({ quality: 40 })
    .toBuffer();
  return sharp(original)
    .composite([{ input: patch, left: 32, top }])
    .png()
    .toBuffer();
}

/**
 * A phone photo of a page, as a hand-held camera takes it: turned by `degrees` (clockwise) on a grey
 * table, dim and low in contrast, lit unevenly from one side, with sensor noise and a little blur,
 * saved as a quality-85 JPEG.
 */
export async function phonePhotoOf(page: Buffer, degrees: number): Promise<Buffer> {
  const { width = 0, height = 0 } = await sharp(page).metadata();
  const shade = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><linearGradient id="g"><stop offset="0" stop-color="#fff"/><stop offset="1" stop-color="#555"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/></svg>`,
  );
  // Sensor noise from a fixed-seed generator (a linear congruential one), so every run sees the same photo.
  const grain = Buffer.alloc(width * height * 3);
  let seed = 20_260_301;
  for (let i = 0; i < grain.length; i++) {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    grain[i] = 128 + ((seed >> 16) % 41) - 20;
  }
  const noise = await sharp(grain, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
  const lit = await sharp(page)
    .composite([
      { input: shade, blend: 'multiply' },
      { input: noise, blend: 'overlay' },
    ])
    .png()
    .toBuffer();
  return sharp(lit).rotate(degrees, { background: '#8a8a8a' }).linear(0.55, 50).blur(0.7).jpeg({ quality: 85 }).toBuffer();
}

/**
 * The PDF with an incremental update appended that only sets new document metadata, as a viewer
 * or an archiving system saves a bill it was given: one new Info object, its xref section and a
 * trailer pointing back to the file's last one.
 */
export function withMetadataUpdate(bytes: Buffer): Buffer {
  const raw = bytes.toString('latin1');
  const previous = [...raw.matchAll(/startxref\s+(\d+)/g)].at(-1)![1];
  const size = Number([...raw.matchAll(/\/Size\s+(\d+)/g)].at(-1)![1]);
  const root = [...raw.matchAll(/\/Root\s+(\d+\s+\d+\s+R)/g)].at(-1)![1];
  const object = `\n${size} 0 obj\n<< /Producer (Archive viewer 3.1) /ModDate (D:20260301120000Z) >>\nendobj\n`;
  const objectOffset = bytes.length + 1;
  const xrefOffset = bytes.length + object.length;
  const update =
    object +
    `xref\n${size} 1\n${String(objectOffset).padStart(10, '0')} 00000 n \n` +
    `trailer\n<< /Size ${size + 1} /Root ${root} /Info ${size} 0 R /Prev ${previous} >>\nstartxref\n${xrefOffset}\n%%EOF\n`;
  return Buffer.concat([bytes, Buffer.from(update, 'latin1')]);
}

/** `YYYY-MM-DD` of the UTC day `days` before today. */
export function daysAgo(days: number, now = new Date()): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - days)).toISOString().slice(0, 10);
}

/** "12 March 2026" of an ISO date. */
export function longDate(iso: string): string {
  const date = new Date(`${iso}T00:00:00Z`);
  return `${date.getUTCDate()} ${date.toLocaleString('en-GB', { month: 'long', timeZone: 'UTC' })} ${date.getUTCFullYear()}`;
}

/** A PDF file from its objects' bodies (object n is `objects[n - 1]`), with a correct xref table; object 1 is the catalog. */
export function rawPdf(objects: readonly (string | Buffer)[]): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  let length = parts[0].length;
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(length);
    const part = Buffer.concat([Buffer.from(`${index + 1} 0 obj\n`), Buffer.from(body), Buffer.from('\nendobj\n')]);
    parts.push(part);
    length += part.length;
  });
  const xref = [
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`,
    ...offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`),
  ];
  parts.push(Buffer.from(`${xref.join('')}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`));
  return Buffer.concat(parts);
}

/** A stream object with the given dictionary entries and (already encoded) data. */
export function streamObject(entries: string, data: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`<< ${entries} /Length ${data.length} >>\nstream\n`), data, Buffer.from('\nendstream')]);
}

/**
 * A zlib stream of `megabytes` MB of zeros, about a thousandth of that long, built without ever
 * holding the zeros: one flushed deflate block of 1 MB of zeros repeated (its back-references only
 * reach zeros), a final empty block, and the Adler-32 of n zeros (a = 1, b = n mod 65521).
 */
export function zerosFlate(megabytes: number): Buffer {
  const blockBytes = 1024 * 1024;
  const block = deflateRawSync(Buffer.alloc(blockBytes), { finishFlush: zlibConstants.Z_SYNC_FLUSH });
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE(((((megabytes * blockBytes) % 65521) << 16) | 1) >>> 0);
  return Buffer.concat([Buffer.from([0x78, 0x9c]), ...Array.from({ length: megabytes }, () => block), Buffer.from([0x03, 0x00]), adler]);
}
