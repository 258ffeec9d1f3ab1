/**
 * Synthetic US and Canadian licences for tests and the barcode bench: an AAMVA payload built by
 * the standard's layout (header, subfile designators with true offsets and lengths, DL subfile,
 * a jurisdiction subfile), encoded as PDF417 by bwip-js (an encoder independent of the zxing
 * decoder under test) onto a card back, and a card front printing the same fields under the
 * labels US licences use. Both at 10 px/mm (856×540, an ID-1 card), damaged like phone photos by
 * `degradeImage`.
 */
import bwipjs from 'bwip-js/node';
import sharp from 'sharp';
import { degradeImage, type Degradation } from './synthetic-document.js';

/** Who the licence belongs to, and how its barcode is written. */
export interface LicenceIdentity {
  /** Issuer identification number (636014 California, 636012 Ontario). */
  iin: string;
  /** AAMVA version, 1–10. */
  version: number;
  /** `USA` or `CAN` (DCG); omitted from the payload when null. */
  country: 'USA' | 'CAN' | null;
  /** `DL` or `ID`. */
  type: 'DL' | 'ID';
  state: string;
  lastName: string;
  firstName: string;
  middleName?: string;
  /** `YYYY-MM-DD`. */
  dateOfBirth: string;
  /** `YYYY-MM-DD`. */
  expiryDate: string;
  /** `YYYY-MM-DD`. */
  issueDate: string;
  documentNumber: string;
  /** 1 male, 2 female, 9 not specified. */
  sex: '1' | '2' | '9';
  street: string;
  city: string;
  postalCode: string;
}

/** A California licence valid for `yearsValid` more years (negative: expired). */
export function californiaLicence(yearsValid = 4, now = new Date()): LicenceIdentity {
  const year = now.getUTCFullYear();
  return {
    iin: '636014',
    version: 10,
    country: 'USA',
    type: 'DL',
    state: 'CA',
    lastName: 'SAMPLE',
    firstName: 'JANE',
    middleName: 'QUINN',
    dateOfBirth: '1990-01-31',
    expiryDate: `${year + yearsValid}-01-31`,
    issueDate: `${year - 1}-02-01`,
    documentNumber: 'D1234567',
    sex: '2',
    street: '123 MAIN ST',
    city: 'SACRAMENTO',
    postalCode: '958140000',
  };
}

/** An Ontario licence (Canadian: dates `CCYYMMDD`). */
export function ontarioLicence(now = new Date()): LicenceIdentity {
  const year = now.getUTCFullYear();
  return {
    iin: '636012',
    version: 8,
    country: 'CAN',
    type: 'DL',
    state: 'ON',
    lastName: 'TREMBLAY',
    firstName: 'LOUIS',
    dateOfBirth: '1984-11-05',
    expiryDate: `${year + 3}-11-05`,
    issueDate: `${year - 2}-11-05`,
    documentNumber: 'T7654-32108-41105',
    sex: '1',
    street: '90 BAY ST',
    city: 'TORONTO',
    postalCode: 'M5J 2W3',
  };
}

/** Provinces and territories, whose cards write dates `CCYYMMDD`. */
const CANADIAN_JURISDICTIONS = ['AB', 'BC', 'MB', 'NB', 'NL', 'NS', 'NT', 'NU', 'ON', 'PE', 'QC', 'SK', 'YT'];

const usDate = (iso: string) => `${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(0, 4)}`;
const compactDate = (iso: string) => iso.replace(/-/g, '');

/** The AAMVA payload of a licence, with offsets and lengths computed as the standard lays them out. */
export function aamvaPayload(identity: LicenceIdentity): string {
  const canadian = identity.country ? identity.country === 'CAN' : CANADIAN_JURISDICTIONS.includes(identity.state);
  const date = (iso: string) => (identity.version === 1 || canadian ? compactDate(iso) : usDate(iso));
  const elements: [string, string][] = [
    ['DAQ', identity.documentNumber],
    ['DCS', identity.lastName],
    ['DAC', identity.firstName],
    ['DAD', identity.middleName ?? 'NONE'],
    ['DBB', date(identity.dateOfBirth)],
    ['DBA', date(identity.expiryDate)],
    ['DBD', date(identity.issueDate)],
    ['DBC', identity.sex],
    ['DAY', 'BRO'],
    ['DAU', '065 IN'],
    ['DAG', identity.street],
    ['DAI', identity.city],
    ['DAJ', identity.state],
    ['DAK', identity.postalCode],
    ['DCF', '8839201144556677'],
    ...(identity.country ? ([['DCG', identity.country]] as [string, string][]) : []),
    ['DDE', 'N'],
    ['DDF', 'N'],
    ['DDG', 'N'],
  ];
  const main = `${identity.type}${elements.map(([id, value]) => `${id}${value}`).join('\n')}\n\r`;
  const jurisdiction = `Z${identity.state[0]}Z${identity.state[0]}A${identity.documentNumber.slice(-4)}\r`;
  const versionPart = identity.version === 1 ? '01' : `${String(identity.version).padStart(2, '0')}00`;
  const headerLength = 4 + 5 + 6 + versionPart.length + 2 + 2 * 10;
  const designator = (type: string, offset: number, length: number) =>
    `${type}${String(offset).padStart(4, '0')}${String(length).padStart(4, '0')}`;
  const header =
    `@\n\x1e\rANSI ${identity.iin}${versionPart}02` +
    designator(identity.type, headerLength, main.length) +
    designator(`Z${identity.state[0]}`, headerLength + main.length, jurisdiction.length);
  return header + main + jurisdiction;
}

/** A PDF417 symbol of bytes (Latin-1 text), as PNG with a white background. */
export async function pdf417(payload: string, moduleWidthPx = 3): Promise<Buffer> {
  return bwipjs.toBuffer({
    bcid: 'pdf417',
    text: payload,
    binarytext: true,
    columns: 9,
    eclevel: 5,
    scale: moduleWidthPx,
    backgroundcolor: 'FFFFFF',
  } as Parameters<typeof bwipjs.toBuffer>[0]);
}

/** A card-sized background with a fine guilloche-like pattern and a few printed lines, as licences have. */
function cardSvg(body: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="856" height="540">
    <defs><pattern id="g" width="24" height="24" patternUnits="userSpaceOnUse"><circle cx="12" cy="12" r="10" fill="none" stroke="#c9d6e8" stroke-width="1"/></pattern></defs>
    <rect width="856" height="540" rx="30" fill="#eef3fa"/><rect width="856" height="540" rx="30" fill="url(#g)"/>
    <g font-family="DejaVu Sans, sans-serif" fill="#223">${body}</g></svg>`;
}

/** The back of a licence: a few printed lines and the PDF417, as an undamaged PNG. */
export async function renderLicenceBackPng(identity: LicenceIdentity, payload = aamvaPayload(identity)): Promise<Buffer> {
  const card = sharp(
    Buffer.from(
      cardSvg(`<text x="40" y="60" font-size="20">${identity.state} DEPARTMENT OF MOTOR VEHICLES</text>
      <text x="40" y="92" font-size="16">This card is the property of the issuing jurisdiction.</text>`),
    ),
  );
  const symbol = sharp(await pdf417(payload));
  const { width = 0, height = 0 } = await symbol.metadata();
  // AAMVA's PDF417 fills most of the back's width; keep it within the card's margins.
  const scale = Math.min(780 / width, 380 / height, 1);
  const barcode = await symbol
    .resize({ width: Math.round(width * scale), height: Math.round(height * scale), kernel: 'nearest' })
    .png()
    .toBuffer();
  const placed = await sharp(barcode).metadata();
  return card
    .composite([{ input: barcode, left: Math.round((856 - (placed.width ?? 0)) / 2), top: 130 }])
    .png()
    .toBuffer();
}

/** The back of a licence damaged like a phone photo. */
export async function renderLicenceBack(identity: LicenceIdentity, degradation: Degradation = {}, payload?: string): Promise<Buffer> {
  return degradeImage(await renderLicenceBackPng(identity, payload), degradation);
}

const printedDate = (iso: string) => `${iso.slice(5, 7)}/${iso.slice(8, 10)}/${iso.slice(0, 4)}`;

/** The front of a licence: portrait box and the fields under US labels (LN, FN, DOB, EXP, DL). */
export async function renderLicenceFront(identity: LicenceIdentity, degradation: Degradation = {}): Promise<Buffer> {
  const svg = cardSvg(`<text x="40" y="62" font-size="34" font-weight="bold">${identity.state} DRIVER LICENSE</text>
    <rect x="40" y="110" width="220" height="280" fill="#9aa6b8"/>
    <text x="300" y="130" font-size="20">DL ${identity.documentNumber}</text>
    <text x="300" y="175" font-size="20">EXP ${printedDate(identity.expiryDate)}</text>
    <text x="300" y="220" font-size="20">LN ${identity.lastName}</text>
    <text x="300" y="260" font-size="20">FN ${identity.firstName}${identity.middleName ? ` ${identity.middleName}` : ''}</text>
    <text x="300" y="300" font-size="20">${identity.street}</text>
    <text x="300" y="330" font-size="20">${identity.city}, ${identity.state} ${identity.postalCode.slice(0, 5)}</text>
    <text x="300" y="375" font-size="20">DOB ${printedDate(identity.dateOfBirth)}</text>
    <text x="300" y="415" font-size="20">SEX ${identity.sex === '1' ? 'M' : identity.sex === '2' ? 'F' : 'X'}  ISS ${printedDate(identity.issueDate)}</text>`);
  return degradeImage(await sharp(Buffer.from(svg)).png().toBuffer(), degradation);
}
